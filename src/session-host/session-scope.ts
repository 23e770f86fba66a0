import { SessionNotFoundError } from '../errors/session-errors.js';
import { encodedKey } from '../persistence/session-keys.js';
import type { SessionKey, SessionPage } from '../persistence/session-store.js';

/**
 * A runtime's scope (an `AgentSession`'s): the one (user, session) it serves. Every other key
 * behaves as not found; listings show only the scope's session.
 */

/**
 * The key of `target`; outside `scope` it is not found (`SessionNotFoundError`). It carries its
 * session part encoded once (`encodedKey`), so the cache, the queue and the store key the
 * session without encoding it again at each use (about 17 times a message). A key that cannot
 * be encoded is returned plain: the store refuses it where it did before (`TypeError`).
 */
export function keyInScope(target: string | SessionKey, scope: SessionKey | undefined): SessionKey {
  const key =
    typeof target === 'string'
      ? { sessionId: target }
      : { sessionId: target.sessionId, userId: target.userId };
  if (scope && (key.sessionId !== scope.sessionId || key.userId !== scope.userId)) {
    throw new SessionNotFoundError(key.sessionId);
  }
  try {
    return encodedKey(key);
  } catch {
    return key;
  }
}

/** A listing page cut to `scope`'s session (unchanged without a scope). */
export function pageInScope(page: SessionPage, scope: SessionKey | undefined): SessionPage {
  if (!scope) return page;
  return { ...page, sessions: page.sessions.filter((s) => s.sessionId === scope.sessionId) };
}
