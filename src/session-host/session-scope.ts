import { SessionNotFoundError } from '../errors/session-errors.js';
import type { SessionKey, SessionPage } from '../persistence/session-store.js';

/**
 * A runtime's scope (an `AgentSession`'s): the one (user, session) it serves. Every other key
 * behaves as not found; listings show only the scope's session.
 */

/** The key of `target`; outside `scope` it is not found (`SessionNotFoundError`). */
export function keyInScope(target: string | SessionKey, scope: SessionKey | undefined): SessionKey {
  const key =
    typeof target === 'string'
      ? { sessionId: target }
      : { sessionId: target.sessionId, userId: target.userId };
  if (scope && (key.sessionId !== scope.sessionId || key.userId !== scope.userId)) {
    throw new SessionNotFoundError(key.sessionId);
  }
  return key;
}

/** A listing page cut to `scope`'s session (unchanged without a scope). */
export function pageInScope(page: SessionPage, scope: SessionKey | undefined): SessionPage {
  if (!scope) return page;
  return { ...page, sessions: page.sessions.filter((s) => s.sessionId === scope.sessionId) };
}
