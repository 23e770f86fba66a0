import { MemoryConflictError } from '../../errors/memory-errors.js';
import { APPLIED_OPS, checkedScope, checkedWorkingMemoryWrite } from '../memory-checks.js';
import type { MemoryScope, WorkingMemoryRecord, WorkingMemoryWrite } from '../memory-store.js';
import * as keys from '../session-keys.js';
import type { PostgresDatabase } from './postgres-database.js';
import {
  decodeWorkingMemory,
  encodeWorkingMemory,
  resourceColumn,
} from './postgres-memory-rows.js';
import { workingMemoryRecord as record, type WorkingMemoryValue } from '../memory-values.js';

/**
 * Working memory on PostgreSQL: one sealed document per scope in `agentstate_working_memories`,
 * its version a column, written by a compare-and-set on it (an insert for the first version),
 * with the op ids it took (the latest 64) inside the document.
 */
export class PostgresWorkingMemory {
  constructor(private readonly db: PostgresDatabase) {}

  async readWorkingMemory(scope: MemoryScope): Promise<WorkingMemoryRecord | undefined> {
    const { userId, resource } = checkedScope(scope);
    const stored = await this.readDocument(keys.ownerPart(userId), resourceColumn(resource));
    return stored && record(stored);
  }

  async writeWorkingMemory(
    scope: MemoryScope,
    write: WorkingMemoryWrite,
  ): Promise<WorkingMemoryRecord & { applied: boolean }> {
    const { userId, resource: given } = checkedScope(scope);
    const { content, expectedVersion, opId, at } = checkedWorkingMemoryWrite(write);
    const owner = keys.ownerPart(userId);
    const resource = resourceColumn(given);
    const table = this.db.table('agentstate_working_memories');
    // A compare-and-set on the version; a write that lost the race reads the document again
    // (its op may be the one that won: a retry after a crash), then answers as the row says.
    // As JSON keeps it: what a read answers (undefined fields left out).
    const json = JSON.parse(JSON.stringify(content)) as WorkingMemoryValue['content'];
    for (let attempt = 0; attempt < 3; attempt++) {
      const stored = await this.readDocument(owner, resource);
      if (stored?.ops.includes(opId)) return { ...record(stored), applied: false };
      const version = stored?.version ?? 0;
      if (version !== expectedVersion) throw new MemoryConflictError(expectedVersion, version);
      const next: WorkingMemoryValue = {
        content: json,
        version: version + 1,
        updatedAt: at,
        ops: [...(stored?.ops ?? []), opId].slice(-APPLIED_OPS),
      };
      const doc = encodeWorkingMemory(owner, resource, next);
      const { rows } = await this.db.query(
        'write working memory',
        {},
        () =>
          version === 0
            ? `INSERT INTO ${table} (owner, resource, version, doc) VALUES ($1, $2, $3 + 1, $4)
               ON CONFLICT (owner, resource) DO NOTHING RETURNING 1`
            : `UPDATE ${table} SET version = $3 + 1, doc = $4
               WHERE owner = $1 AND resource = $2 AND version = $3 RETURNING 1`,
        [owner, resource, version, doc],
      );
      if (rows.length === 1) {
        this.db.count([doc]);
        return { ...record(next), applied: true };
      }
    }
    const stored = await this.readDocument(owner, resource);
    throw new MemoryConflictError(expectedVersion, stored?.version ?? 0);
  }

  private async readDocument(
    owner: string,
    resource: string,
  ): Promise<WorkingMemoryValue | undefined> {
    const { rows } = await this.db.query<{ doc: string }>(
      'read working memory',
      {},
      () =>
        `SELECT doc FROM ${this.db.table('agentstate_working_memories')}
         WHERE owner = $1 AND resource = $2`,
      [owner, resource],
    );
    const doc = rows[0]?.doc;
    return decodeWorkingMemory(owner, resource, doc);
  }
}
