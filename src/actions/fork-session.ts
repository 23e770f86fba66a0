import { ulid } from 'ulid';
import { ForkPositionError } from '../errors/replay-errors.js';
import { InvalidSessionTransitionError } from '../errors/session-errors.js';
import type { Item } from '../items/item.js';
import type { SessionInfo } from '../persistence/session-store.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import type { SessionAction } from './session-action.js';

export interface ForkSessionOptions {
  /**
   * History position to fork at: the new session gets items `[0, at)`, the parent's later
   * items stay the parent's ("time travel"). Must not split a tool call from its result.
   * @default the whole history (without the items of a run that is paused)
   */
  at?: number | undefined;
}

const FORK_OPTION_NAMES = optionNames<ForkSessionOptions>({ at: true });

/** The position of the first tool call in `items` whose result is not in `items`, if any. */
function unansweredCall(items: readonly Item[]): number | undefined {
  const answered = new Set<string>();
  for (const item of items) if (item.type === 'tool_result') answered.add(item.callId);
  const index = items.findIndex((i) => i.type === 'tool_call' && !answered.has(i.callId));
  return index < 0 ? undefined : index;
}

/**
 * Creates a new session (same user) holding this session's history up to `at` (all of it by
 * default) and its settings, with a link to its parent. The two then diverge; the parent is not
 * changed. A run is never carried: the fork starts idle. A run in flight refuses the fork
 * (`InvalidSessionTransitionError`, like every action but a resume); the items of a run that is
 * paused (awaiting an approval, interrupted) belong to that run, so a fork ends before its
 * input, and an `at` past that is `ForkPositionError` like one past the history's length or
 * one between a tool call and its result.
 * @throws TypeError for an unknown option or an `at` that is not a non-negative integer.
 * @example
 * await runtime.execute(key, forkSession('conv-42-retry', { at: 4 })); // items 0..3
 */
export function forkSession(
  newSessionId: string = ulid(),
  options: ForkSessionOptions = {},
): SessionAction<SessionInfo> {
  new OptionChecker('forkSession()', options, FORK_OPTION_NAMES).nonNegativeInteger('at');
  return {
    name: 'forkSession',
    async apply(ctx) {
      const { host, key, store } = ctx;
      if (host.status() === 'deleted') {
        throw new InvalidSessionTransitionError(key.sessionId, 'forkSession', host.stateName());
      }
      const parent = host.context();
      const paused = host.runSnapshot()?.context.historyStart;
      const length = host.log.length;
      const limit = paused ?? length;
      const at = options.at ?? limit;
      if (at > length) {
        throw new ForkPositionError(key.sessionId, at, limit, `the history has ${length} items`);
      }
      if (at > limit) {
        throw new ForkPositionError(
          key.sessionId,
          at,
          limit,
          `items from ${limit} belong to the paused run (resume or cancel it first)`,
        );
      }
      const items = host.log.view().slice(0, at);
      const open = unansweredCall(items);
      if (open !== undefined) {
        throw new ForkPositionError(
          key.sessionId,
          at,
          limit,
          `the tool call at ${open} would lose its result`,
        );
      }
      const record = ctx.newRecord(
        { sessionId: newSessionId, userId: key.userId },
        {
          parentId: key.sessionId,
          config: parent.config,
          historyFrom: Math.min(parent.historyFrom, at),
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
