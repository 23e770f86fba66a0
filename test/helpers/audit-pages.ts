import type { AuditEntry, AuditPage, AuditQuery } from '../../src/persistence/audit-log.js';

/** Every audit entry of one user, read page by page (small pages, to exercise the cursor). */
export async function allAuditEntries(
  read: (query: AuditQuery) => Promise<AuditPage>,
  userId: string | undefined,
  limit = 3,
): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await read({ userId, cursor, limit });
    out.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
