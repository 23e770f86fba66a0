import { MemoryConflictError } from '../../errors/memory-errors.js';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import {
  APPLIED_OPS,
  checkedIds,
  checkedListLimit,
  checkedMemories,
  checkedResource,
  checkedScope,
  checkedSearch,
  checkedUser,
  checkedWorkingMemoryWrite,
} from '../memory-checks.js';
import type {
  ForgetResult,
  Memory,
  MemoryInput,
  MemoryListQuery,
  MemoryMatch,
  MemoryPage,
  MemoryResource,
  MemoryScope,
  MemorySearch,
  MemoryStore,
  WorkingMemoryRecord,
  WorkingMemoryWrite,
} from '../memory-store.js';
import { encodeStored } from '../session-schemas.js';
import { ExactSearch } from '../vectors/exact-search.js';
import { ScopeVectorCache } from '../vectors/scope-vector-cache.js';
import type { KvBackend } from './backends/kv-backend.js';
import { forgetOps } from './memory-forget.js';
import * as keys from './memory-keys.js';
import {
  cursorAfter,
  listEntries,
  loadScope,
  readMemoryValues,
  scopeCounts,
  storedDimensions,
} from './memory-reads.js';
import { decodeWorkingMemory, workingMemoryRecord } from '../memory-values.js';
import { deleteOps, keyOf, put, putOps, type Owner } from './memory-write-ops.js';
import type { WriteQueue } from './write-queue.js';

/** A write of memory that failed to be written: the backend's error as it is. */
const asIs = (error: unknown): unknown => error;

/** The cache key of a memory's scope and model: the key prefix of its vectors. */
const scopeKey = (m: { userId?: Owner; resource?: string | undefined; model: string }): string =>
  keys.vectorPrefix(m.userId, m.resource, m.model);

/**
 * Memory across sessions (`MemoryStore`) in a key-value store (keys in `memory-keys.ts`, values
 * in `memory-values.ts`): every write one atomic batch through the store's write queue, checked
 * against the store as the writes before it leave it, so a write's checks (a memory's dimension,
 * a working memory's version and op ids) and its ops are atomic in the process that holds the
 * store. A search loads a scope's vectors once (`ScopeVectorCache`) and the store's writes keep
 * them current. `forgetMemories` deletes the user's or the resource's keys, then compacts the
 * user's key range, so the backend's files no longer hold what was erased.
 */
export class KvMemory implements MemoryStore {
  private readonly cache = new ScopeVectorCache();
  private readonly exact = new ExactSearch();

  constructor(
    private readonly backend: KvBackend,
    private readonly writes: WriteQueue,
  ) {}

  async putMemories(memories: readonly MemoryInput[]): Promise<{ written: number }> {
    const keyed = checkedMemories(memories).map((memory) => ({
      memory,
      key: keyOf(memory.id, () => keys.memoryKey(memory.userId, memory.id)),
    }));
    if (keyed.length === 0) return { written: 0 };
    return this.writes.run(async (view) => {
      const { ops, fresh } = await putOps(view, keyed);
      return {
        ops,
        written: () => {
          for (const memory of fresh) {
            // The row a search needs, nothing more (the cache keeps it as long as the scope).
            const { id, kind, sessionId } = memory;
            const row = { id, kind, ...(sessionId === undefined ? {} : { sessionId }) };
            this.cache.added(scopeKey(memory), row, memory.vector);
          }
          return { written: fresh.length };
        },
      };
    }, asIs);
  }

  async searchMemories(query: MemorySearch): Promise<MemoryMatch[]> {
    const search = checkedSearch(query);
    const { userId } = search;
    // Only memories of the query's model and dimension compare.
    const dimensions = search.vector.length;
    if ((await storedDimensions(this.backend, userId, search.model)) !== dimensions) return [];
    const resources =
      search.resource === undefined
        ? (await scopeCounts(this.backend, userId)).map((s) => s.resource)
        : [search.resource];
    const filter = { excludeSessionId: search.excludeSessionId, kinds: search.kinds };
    const found: { id: string; score: number }[] = [];
    for (const resource of resources) {
      const prefix = keys.vectorPrefix(userId, resource, search.model);
      const scope = { userId, resource, model: search.model };
      const vectors = await this.cache.get(prefix, () =>
        loadScope(this.backend, prefix, scope, dimensions),
      );
      // Of another dimension: the model's memories changed dimension since (none of this one).
      if (vectors.dimensions !== dimensions) continue;
      found.push(
        ...vectors.search(this.exact, search.vector, search.topK, filter, search.minScore),
      );
    }
    const best = found.sort((a, b) => b.score - a.score).slice(0, search.topK);
    const read = await readMemoryValues(
      this.backend,
      userId,
      best.map((b) => b.id),
    );
    // A memory deleted since its vector was found is left out.
    return best.flatMap(({ score }, i) => (read[i] ? [{ memory: read[i].memory, score }] : []));
  }

  async listMemories(query: MemoryListQuery): Promise<MemoryPage> {
    const limit = checkedListLimit(query);
    const userId = checkedUser(query.userId);
    const resource = checkedResource(query.resource);
    const { kind, cursor } = query;
    if (kind !== undefined && kind !== 'message' && kind !== 'fact') {
      throw new TypeError('listMemories: kind must be "message" or "fact"');
    }
    const listed = await listEntries(this.backend, { userId, resource, kind, cursor, limit });
    const values = await readMemoryValues(
      this.backend,
      userId,
      listed.entries.map((e) => e.entry.id),
    );
    const memories: Memory[] = [];
    listed.entries.forEach(({ seq, indexKey, entry }, i) => {
      const read = values[i];
      // Deleted since its entry was read (a delete removes both in one batch): left out.
      if (read === undefined || read.value.seq !== seq) return;
      if (read.value.kind !== entry.kind || read.value.resource !== entry.resource) {
        throw new InvalidSessionRecordError(indexKey, 'the list entry differs from its memory');
      }
      memories.push(read.memory);
    });
    const last = listed.entries.at(-1);
    return { memories, nextCursor: listed.more && last ? cursorAfter(last.seq) : undefined };
  }

  async getMemories(
    scope: { userId?: string | undefined },
    ids: readonly string[],
  ): Promise<Memory[]> {
    const userId = checkedUser(scope.userId);
    const read = await readMemoryValues(this.backend, userId, checkedIds('getMemories', ids));
    return read.flatMap((r) => (r ? [r.memory] : []));
  }

  async deleteMemories(
    scope: { userId?: string | undefined },
    ids: readonly string[],
  ): Promise<number> {
    const userId = checkedUser(scope.userId);
    const wanted = checkedIds('deleteMemories', ids);
    if (wanted.length === 0) return 0;
    return this.writes.run(async (view) => {
      const gone = (await readMemoryValues(view, userId, wanted)).flatMap((r) =>
        r ? [r.value] : [],
      );
      if (gone.length === 0) return { ops: [], written: () => 0 };
      return {
        ops: await deleteOps(view, userId, gone),
        written: () => {
          // One removal per scope: each moves the scope's rows once.
          const byScope = new Map<string, string[]>();
          for (const value of gone) {
            const key = scopeKey({ userId, ...value });
            const ids = byScope.get(key);
            if (ids) ids.push(value.id);
            else byScope.set(key, [value.id]);
          }
          for (const [key, removed] of byScope) this.cache.removed(key, removed);
          return gone.length;
        },
      };
    }, asIs);
  }

  async readWorkingMemory(scope: MemoryScope): Promise<WorkingMemoryRecord | undefined> {
    const { userId, resource } = checkedScope(scope);
    const key = keys.workingMemoryKey(userId, resource);
    const value = decodeWorkingMemory(key, await this.backend.get(key));
    return value && workingMemoryRecord(value);
  }

  async writeWorkingMemory(
    scope: MemoryScope,
    write: WorkingMemoryWrite,
  ): Promise<WorkingMemoryRecord & { applied: boolean }> {
    const { userId, resource } = checkedScope(scope);
    const { content, expectedVersion, opId, at } = checkedWorkingMemoryWrite(write);
    const key = keys.workingMemoryKey(userId, resource);
    // Stored as plain JSON, and answered as it reads back.
    const json = JSON.parse(JSON.stringify(content)) as string | Record<string, unknown>;
    // Checked in the write queue: of two writers at one version, the first written wins.
    return this.writes.run<WorkingMemoryRecord & { applied: boolean }>(async (view) => {
      const stored = decodeWorkingMemory(key, await view.get(key));
      if (stored?.ops.includes(opId)) {
        return { ops: [], written: () => ({ ...workingMemoryRecord(stored), applied: false }) };
      }
      const version = stored?.version ?? 0;
      if (version !== expectedVersion) throw new MemoryConflictError(expectedVersion, version);
      const next = {
        content: json,
        version: version + 1,
        updatedAt: at,
        ops: [...(stored?.ops ?? []), opId].slice(-APPLIED_OPS),
      };
      return {
        ops: [put(key, encodeStored(key, next))],
        written: () => ({ ...workingMemoryRecord(next), applied: true }),
      };
    }, asIs);
  }

  async forgetMemories(scope: MemoryScope): Promise<ForgetResult> {
    const { userId, resource } = checkedScope(scope);
    const forgotten = await this.writes.run(async (view) => {
      const forgetting = await forgetOps(view, userId, resource, resource === undefined);
      return {
        ops: forgetting.ops,
        written: () => {
          this.cache.cleared(forgetting.vectors);
          return forgetting.forgot;
        },
      };
    }, asIs);
    // What was deleted leaves the files: the user's memory is one key range.
    await this.backend.compact?.([keys.userMemoryRange(userId)]);
    return forgotten;
  }

  async memoryResources(scope: { userId?: string | undefined }): Promise<MemoryResource[]> {
    const userId = checkedUser(scope.userId);
    const byPart = new Map<string, MemoryResource>();
    const scopeOf = (resource: string | undefined, memories: number, workingMemory: boolean) => ({
      ...(resource === undefined ? {} : { resource }),
      memories,
      workingMemory,
    });
    for (const { part, resource, memories } of await scopeCounts(this.backend, userId)) {
      byPart.set(part, scopeOf(resource, memories, false));
    }
    const range = keys.workingMemoryRange(userId);
    for await (const key of this.backend.keys(range)) {
      const part = keys.scopePartOf(range, key);
      const known = byPart.get(part);
      if (known) known.workingMemory = true;
      else byPart.set(part, scopeOf(keys.resourceOfScopePart(part), 0, true));
    }
    // Their own scope first, then by resource name.
    const order = (r: MemoryResource) => (r.resource === undefined ? '' : `~${r.resource}`);
    return [...byPart.values()].sort((a, b) => (order(a) < order(b) ? -1 : 1));
  }
}
