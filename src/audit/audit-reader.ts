import {
  auditJsonLines,
  checkAuditQuery,
  type AuditPage,
  type AuditQuery,
} from '../persistence/audit-log.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';

/**
 * Reads a store's audit log for a runtime: one user's entries (the query's `userId` is
 * required), and with a `scope` (an `AgentSession`'s runtime) only the scope's own session's:
 * another user's query finds nothing, never an error that would tell their entries exist.
 */
export class AuditReader {
  constructor(
    private readonly store: SessionStore,
    private readonly scope: SessionKey | undefined,
  ) {}

  /** @throws TypeError at the call for a query without `userId` or with a bad field. */
  read(query: AuditQuery): Promise<AuditPage> {
    checkAuditQuery(query);
    return this.readChecked(query);
  }

  /** Every entry the query selects, page after page, as JSON lines. */
  export(query: AuditQuery): AsyncIterable<string> {
    checkAuditQuery(query);
    return auditJsonLines((q) => this.readChecked(q), query);
  }

  private async readChecked(query: AuditQuery): Promise<AuditPage> {
    const { scope } = this;
    if (!scope) return this.store.readAudit(query);
    const other = query.sessionId !== undefined && query.sessionId !== scope.sessionId;
    if (query.userId !== scope.userId || other) return { entries: [], nextCursor: undefined };
    return this.store.readAudit({ ...query, sessionId: scope.sessionId });
  }
}
