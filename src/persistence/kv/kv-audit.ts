import type { KvBackend, KvOp } from './backends/kv-backend.js';
import {
  AT_DIGITS,
  auditMatches,
  auditPosition,
  checkAuditQuery,
  decodeAuditAt,
  storedAudit,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
} from '../audit-log.js';
import { keyAfter, ownerPart, prefixRange } from '../session-keys.js';

/** Validates entries before writing (`TypeError`) and returns their sealed put ops. */
export function auditOps(entries: readonly AuditEntry[] | undefined): KvOp[] {
  return (entries ?? []).map((entry) => {
    const { key, value } = storedAudit(entry);
    return { type: 'put', key, value };
  });
}

/** One page of a user's entries from a key-value store, in time order. */
export async function scanAudit(backend: KvBackend, query: AuditQuery): Promise<AuditPage> {
  const { limit, kinds } = checkAuditQuery(query);
  const prefix = `a!${ownerPart(query.userId)}!`;
  const all = prefixRange(prefix);
  const lower = [
    all.gte,
    query.from === undefined ? all.gte : prefix + String(query.from).padStart(AT_DIGITS, '0'),
    query.cursor === undefined ? all.gte : keyAfter(prefix + query.cursor),
  ].reduce((a, b) => (a > b ? a : b));
  const upper =
    query.to === undefined ? all.lt : prefix + String(query.to).padStart(AT_DIGITS, '0');
  const entries: AuditEntry[] = [];
  if (lower >= upper) return { entries, nextCursor: undefined };
  let more = false;
  for await (const [key, text] of backend.iterate({ gte: lower, lt: upper })) {
    const entry = decodeAuditAt(key, text, query.userId);
    if (!auditMatches(entry, query, kinds)) continue;
    if (entries.length === limit) {
      more = true;
      break;
    }
    entries.push(entry);
  }
  const last = entries[entries.length - 1];
  return { entries, nextCursor: more && last ? auditPosition(last.at, last.id) : undefined };
}
