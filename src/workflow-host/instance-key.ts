import { checkIdLength } from '../core/id-limit.js';
import type { SessionKey } from '../persistence/session-store.js';

/** Where instance records' ids start in the store, apart from sessions' own ids. */
export const INSTANCE_PREFIX = 'workflow:';

/** The store key of instance `id` of `userId` (its owner: the same hard partition as sessions). */
export function instanceKey(id: string, userId: string | undefined): SessionKey {
  if (typeof id !== 'string' || id.length === 0) {
    throw new TypeError('workflows: an instance id must be a non-empty string');
  }
  checkIdLength('workflowId', id);
  if (userId !== undefined) {
    if (typeof userId !== 'string' || userId.length === 0) {
      throw new TypeError('workflows: userId must be a non-empty string');
    }
    checkIdLength('userId', userId);
  }
  return { sessionId: `${INSTANCE_PREFIX}${id}`, userId };
}

/** The instance id of a record id (`workflow:<id>`). */
export function instanceIdOf(sessionId: string): string {
  return sessionId.startsWith(INSTANCE_PREFIX)
    ? sessionId.slice(INSTANCE_PREFIX.length)
    : sessionId;
}
