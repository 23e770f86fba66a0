import { LIST_ORDERS } from '../persistence/entries/list-order.js';
import type { ListSessionsQuery, SessionKey } from '../persistence/session-store.js';
import { SessionStatusSchema } from '../persistence/session-schemas.js';
import {
  OptionChecker,
  describeValue,
  isObject,
  optionNames,
} from '../validation/option-checks.js';
import { INSPECT_EXPECTED, isInspectOption } from '../definition/inspection.js';
import type { ApprovalSchedulerOptions } from '../approvals/approval-scheduler-options.js';
import { checkTelemetryOptions } from '../telemetry/telemetry-options.js';
import { SESSION_STORE_METHODS, checkStoreOption } from '../persistence/store-supports.js';
import type { SessionRuntimeOptions } from './session-runtime.js';
import { isPermissionPolicy } from '../core/permission-policy.js';
import { DURABILITY_EXPECTED, isDurability } from '../core/durability-policy.js';
import { isScheduleFiringOptions } from '../schedules/schedule-firing.js';

/**
 * The checks of `SessionRuntime`'s own calls (its constructor, `execute`, `listSessions`,
 * `startScheduler`): a JavaScript caller's mistake is a `TypeError` naming the call and the
 * option, before anything is read or stored.
 */

const RUNTIME_OPTION_NAMES = optionNames<SessionRuntimeOptions>({
  store: true,
  agent: true,
  clock: true,
  scope: true,
  lease: true,
  cachedSessions: true,
  liveSessions: true,
  liveRuns: true,
  inspect: true,
  permissions: true,
  logger: true,
  telemetry: true,
  durability: true,
  maxRecoveries: true,
});

const KEY_NAMES = optionNames<SessionKey>({ sessionId: true, userId: true });

/** `kind` is the store's: a runtime lists sessions only (workflows list their own). */
const LIST_QUERY_NAMES = optionNames<Omit<ListSessionsQuery, 'kind'>>({
  userId: true,
  status: true,
  limit: true,
  cursor: true,
  order: true,
});

const SCHEDULER_OPTION_NAMES = optionNames<ApprovalSchedulerOptions>({
  onError: true,
  onContinued: true,
  retryDelayMs: true,
  batchSize: true,
  listen: true,
  pollIntervalMs: true,
  schedules: true,
});

const STATUSES: readonly string[] = SessionStatusSchema.options;

export function checkRuntimeOptions(options: unknown): void {
  const call = 'new SessionRuntime()';
  new OptionChecker(call, options ?? null, RUNTIME_OPTION_NAMES)
    .implements('store', 'SessionStore', SESSION_STORE_METHODS, true)
    .check(
      'agent',
      'an Agent or an AgentSession (an object with options and a bind function)',
      (v) => isObject(v) && isObject(v['options']) && typeof v['bind'] === 'function',
      true,
    )
    .implements('clock', 'Clock', ['now', 'sleepUntil'])
    .object('scope')
    .check('lease', 'false or { owner?, ttlMs? }', (v) => v === false || isObject(v))
    .positiveInteger('cachedSessions')
    .nonNegativeInteger('liveSessions')
    .instanceOf('liveRuns', Set)
    .implements('logger', 'Logger', ['debug', 'info', 'warn', 'error'])
    .check('telemetry', 'an object or false', (v) => v === false || isObject(v))
    .check('inspect', INSPECT_EXPECTED, isInspectOption)
    .check('permissions', 'a policy with a check(call, scope) function', isPermissionPolicy)
    .check('durability', DURABILITY_EXPECTED, isDurability)
    .nonNegativeInteger('maxRecoveries');
  checkStoreOption(call, options);
  checkTelemetryOptions(call, (options as { telemetry?: unknown }).telemetry);
  const { scope } = options as { scope?: unknown };
  if (scope !== undefined) checkKey(call, scope, 'scope');
}

/** A session key (`{ sessionId, userId? }`) given as an option or argument. */
function checkKey(call: string, key: unknown, path: string): void {
  new OptionChecker(call, key, KEY_NAMES, path).nonEmptyString('sessionId', true).string('userId');
}

/** `execute(target, action)`: a session id or key, and an action object. */
export function checkExecuteCall(target: unknown, action: unknown): void {
  const call = 'runtime.execute()';
  if (typeof target === 'string' ? target.length === 0 : !isObject(target)) {
    throw new TypeError(
      `${call}: the target must be a session id or a { sessionId, userId } key, got ${describeValue(target)}`,
    );
  }
  if (typeof target !== 'string') checkKey(call, target, 'target');
  if (!isObject(action) || typeof action['apply'] !== 'function') {
    throw new TypeError(
      `${call}: the action must be a session action (sendMessage(), continueRun(), ...), got ${describeValue(action)}`,
    );
  }
}

export function checkListQuery(query: unknown): void {
  new OptionChecker('runtime.listSessions()', query, LIST_QUERY_NAMES)
    .string('userId')
    .check('status', `one of ${STATUSES.join(', ')}`, (v) => STATUSES.includes(v as string))
    .positiveInteger('limit')
    .string('cursor')
    .check('order', `one of ${LIST_ORDERS.join(', ')}`, (v) =>
      (LIST_ORDERS as readonly unknown[]).includes(v),
    );
}

/** The scheduler's options, plus `extra` names a caller adds (e.g. the Agent's `store`). */
export function checkSchedulerOptions(
  call: string,
  options: unknown,
  extra: readonly string[] = [],
): void {
  new OptionChecker(call, options, [...SCHEDULER_OPTION_NAMES, ...extra])
    .implements('store', 'SessionStore', SESSION_STORE_METHODS)
    .function('onError')
    .function('onContinued')
    .positiveInteger('retryDelayMs')
    .positiveInteger('batchSize')
    .check('listen', 'a boolean', (v) => typeof v === 'boolean')
    .positiveInteger('pollIntervalMs')
    .check(
      'schedules',
      'false or { claimMs, graceMs, maxConcurrentTicks, pollMs }',
      isScheduleFiringOptions,
    );
  checkStoreOption(call, options);
}
