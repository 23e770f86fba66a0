import type { AuditEntry, AuditPage, AuditQuery, RecordCodecs } from 'agentstate-runtime/store';
import { epochMs, positiveInteger } from './map-checks.js';
import { byMapKey, ownerMapKey } from './map-keys.js';

const DEFAULT_AUDIT_LIMIT = 100;

/** An audit entry checked and sealed, with the owner whose log it goes to. */
export interface EncodedAudit {
  owner: string;
  key: string;
  text: string;
}

/**
 * The audit log of a `MapSessionStore`: owner -> audit key -> sealed entry. Audit keys of one
 * owner sort in time order, so a page is a scan in key order; the cursor is the last key read.
 */
export class MapAuditLog {
  constructor(
    readonly logs: Map<string, Map<string, string>>,
    private readonly codecs: RecordCodecs,
  ) {}

  /** Checks and seals entries (`TypeError` for a bad one) before anything is written. */
  encode(entries: readonly AuditEntry[]): EncodedAudit[] {
    return entries.map((entry) => ({
      ...this.codecs.encodeAuditEntry(entry),
      owner: ownerMapKey(entry.userId),
    }));
  }

  write(audited: readonly EncodedAudit[]): void {
    for (const { owner, key, text } of audited) {
      const log = this.logs.get(owner) ?? new Map<string, string>();
      log.set(key, text);
      this.logs.set(owner, log);
    }
  }

  read(query: AuditQuery): AuditPage {
    const limit = positiveInteger(query.limit ?? DEFAULT_AUDIT_LIMIT, 'audit query: limit');
    epochMs(query.from, 'audit query: from');
    epochMs(query.to, 'audit query: to');
    const kinds = query.kind === undefined ? undefined : [query.kind].flat();
    const log = this.logs.get(ownerMapKey(query.userId)) ?? new Map<string, string>();
    const entries: AuditEntry[] = [];
    let last: string | undefined;
    for (const [key, text] of [...log].sort(byMapKey)) {
      if (query.cursor !== undefined && key <= query.cursor) continue;
      const entry = this.codecs.decodeAuditEntry(key, text, query.userId);
      if (query.from !== undefined && entry.at < query.from) continue;
      if (query.to !== undefined && entry.at >= query.to) continue;
      if (query.sessionId !== undefined && entry.sessionId !== query.sessionId) continue;
      if (kinds !== undefined && !kinds.includes(entry.kind)) continue;
      if (entries.length === limit) return { entries, nextCursor: last };
      entries.push(entry);
      last = key;
    }
    return { entries, nextCursor: undefined };
  }
}
