import type { SessionAction } from '../session-action.js';

export interface DeleteSessionOptions {
  /** Also remove the session's history, journal and record (nothing can be read back). */
  purge?: boolean | undefined;
}

/**
 * Deletes a session: a tombstone with status `deleted` (kept for audit; every further action
 * is refused), or with `purge` the data itself.
 */
export function deleteSession(options: DeleteSessionOptions = {}): SessionAction {
  return {
    name: 'deleteSession',
    event: { type: 'DELETE' },
    async apply({ host, key, store }) {
      host.send({ type: 'DELETE' }, 'deleteSession');
      await host.committer.flush();
      if (options.purge) await store.purge(key);
    },
  };
}
