import { InvalidSessionTransitionError } from '../errors/session-errors.js';
import type { SessionAction } from './session-action.js';

export interface DeleteSessionOptions {
  /** Also remove the session's history, journal and record (nothing can be read back). */
  purge?: boolean | undefined;
}

/**
 * Deletes a session: a tombstone with status `deleted` (kept for audit; every further action
 * is refused), or with `purge` the data itself. A tombstone can still be purged; deleting it
 * again is refused (its actor has finished and takes no event).
 */
export function deleteSession(options: DeleteSessionOptions = {}): SessionAction {
  return {
    name: 'deleteSession',
    event: { type: 'DELETE' },
    async apply({ host, key, store, audit }) {
      if (host.status() !== 'deleted') {
        host.send({ type: 'DELETE' }, 'deleteSession');
        await host.committer.flush();
      } else if (!options.purge) {
        throw new InvalidSessionTransitionError(key.sessionId, 'deleteSession', host.stateName());
      }
      // The session's audit entries outlive it; the purge is one more, in the purge's batch.
      if (options.purge) await store.purge(key, [audit.action('purge', 'session purged')]);
    },
  };
}
