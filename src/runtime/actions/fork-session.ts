import { ulid } from 'ulid';
import { InvalidSessionTransitionError } from '../../errors/session-errors.js';
import type { SessionInfo } from '../../persistence/session-store.js';
import type { SessionAction } from '../session-action.js';

/**
 * Creates a new session (same user) holding this session's history and settings so far, with
 * a link to its parent. The two then diverge; the parent is not changed.
 */
export function forkSession(newSessionId: string = ulid()): SessionAction<SessionInfo> {
  return {
    name: 'forkSession',
    async apply(ctx) {
      const { host, key, store } = ctx;
      if (host.status() === 'deleted') {
        throw new InvalidSessionTransitionError(key.sessionId, 'forkSession', host.stateName());
      }
      const parent = host.context();
      const items = host.log.view();
      const record = ctx.newRecord(
        { sessionId: newSessionId, userId: key.userId },
        {
          parentId: key.sessionId,
          config: parent.config,
          historyFrom: parent.historyFrom,
          standingDecisions: parent.standingDecisions,
        },
      );
      // Recorded with the new session's create (the parent is not written).
      const audit = [ctx.audit.action('forkSession', `forked into ${newSessionId}`)];
      const created = await store.create({ ...record, historyLength: items.length }, items, audit);
      const { snapshot: _s, machineVersion: _m, ...info } = created;
      return info;
    },
  };
}
