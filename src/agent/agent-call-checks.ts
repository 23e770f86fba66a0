import { checkIdLength } from '../core/id-limit.js';
import type { RunContextInit } from '../core/run-context.js';
import { checkRunOptions } from '../actions/run-call-checks.js';
import { RunState, type ApprovalDecision } from '../runs/run-state.js';
import { OptionChecker, describeValue, optionNames } from '../validation/option-checks.js';
import { isPlainJson } from '../validation/plain-json.js';
import type {
  CancelOptions,
  RejectOptions,
  ResumeOptions,
  RunOptions,
} from './agent-call-options.js';
import type { SessionRunOptions } from './agent-session.js';

/**
 * The checks of the Agent's calls that run before anything is loaded or run: each throws a
 * `TypeError` naming the call and the argument or option at the first mistake.
 */

export const RUN_OPTION_NAMES = optionNames<RunOptions>({
  sessionId: true,
  userId: true,
  metadata: true,
  store: true,
  signal: true,
  maxTurns: true,
  modelSettings: true,
  durability: true,
  whileBusy: true,
  messageId: true,
});

export const RESUME_OPTION_NAMES = optionNames<ResumeOptions>({
  userId: true,
  metadata: true,
  store: true,
  signal: true,
  maxTurns: true,
  durability: true,
});

export const REJECT_OPTION_NAMES = [
  ...RESUME_OPTION_NAMES,
  ...optionNames<Omit<RejectOptions, keyof ResumeOptions>>({
    always: true,
    runId: true,
    by: true,
    message: true,
  }),
];

export const APPROVE_OPTION_NAMES = REJECT_OPTION_NAMES.filter((name) => name !== 'message');

export const RESOLVE_IN_DOUBT_OPTION_NAMES = [...RESUME_OPTION_NAMES, 'by'];

export const CANCEL_OPTION_NAMES = optionNames<CancelOptions>({
  userId: true,
  store: true,
  by: true,
});

export const SESSION_RUN_OPTION_NAMES = optionNames<SessionRunOptions>({
  signal: true,
  maxTurns: true,
  modelSettings: true,
  durability: true,
  whileBusy: true,
  messageId: true,
});

/** `session.resume()` keeps the run's stored model settings; it sends no message. */
export const SESSION_RESUME_OPTION_NAMES = SESSION_RUN_OPTION_NAMES.filter(
  (name) => name !== 'modelSettings' && name !== 'whileBusy' && name !== 'messageId',
);

const CONTEXT_NAMES = optionNames<RunContextInit>({
  runId: true,
  sessionId: true,
  userId: true,
  metadata: true,
});

/** A resume's target: a session id or a RunState. */
export function checkResumeTarget(call: string, target: unknown, hint = ''): void {
  if (typeof target === 'string' ? target.length === 0 : !(target instanceof RunState)) {
    throw new TypeError(
      `${call}: the target must be a session id or a RunState${hint}, got ${describeValue(target)}`,
    );
  }
}

/**
 * An id argument (`name`: `session id`, `call id`) is a non-empty string (`TypeError`) of at
 * most `MAX_ID_LENGTH` characters (`IdTooLongError`).
 */
export function checkId(call: string, name: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(
      `${call}: the ${name} must be a non-empty string, got ${describeValue(value)}`,
    );
  }
  checkIdLength(name, value);
}

/** `agent.approve` / `agent.reject`: their arguments, checked, as the decision to apply. */
export function decisionOf(
  call: string,
  sessionId: string,
  callId: string,
  approve: boolean,
  options: RejectOptions,
  names: readonly string[],
): ApprovalDecision {
  checkId(call, 'session id', sessionId);
  checkId(call, 'call id', callId);
  checkRunOptions(call, options, names);
  new OptionChecker(call, options, names)
    .check('always', 'a boolean', (v) => typeof v === 'boolean')
    .nonEmptyString('runId')
    .check('message', 'a string', (v) => typeof v === 'string');
  const { always, runId, by, message } = options;
  return {
    callId,
    approve,
    ...(always === undefined ? {} : { always }),
    ...(runId === undefined ? {} : { runId }),
    ...(by === undefined ? {} : { by }),
    ...(message === undefined ? {} : { message }),
  };
}

/** `agent.createSession`'s context: ids, and metadata that is plain JSON (it is stored). */
export function checkSessionContext(context: RunContextInit): void {
  new OptionChecker('agent.createSession()', context, CONTEXT_NAMES, 'context')
    .nonEmptyString('runId')
    .nonEmptyString('sessionId')
    .nonEmptyString('userId')
    .object('metadata')
    .check('metadata', 'plain JSON (it is stored with the runs)', (v) => isPlainJson(v));
}
