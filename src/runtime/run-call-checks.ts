import type { SessionStore } from '../persistence/session-store.js';
import { checkModelSettings } from '../models/model-settings.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import { isPlainJson } from '../validation/plain-json.js';
import { checkRunInput } from '../validation/run-input-check.js';
import type { ContinueRunOptions } from './actions/continue-run.js';
import type { RunActionOptions } from './actions/run-options.js';
import type { CancelOptions, RejectOptions, ResumeOptions, RunOptions } from './agent.js';
import type { SessionRunOptions } from './agent-session.js';
import { DURABILITY_EXPECTED, isDurability } from './durability-policy.js';

/** What an object must have to pass for a `SessionStore` at a call. */
export const SESSION_STORE_METHODS: readonly (keyof SessionStore)[] = [
  'create',
  'load',
  'loadForUpdate',
  'save',
  'readHistory',
  'readJournal',
  'readRunJournal',
  'list',
];

export const RUN_OPTION_NAMES = optionNames<RunOptions>({
  sessionId: true,
  userId: true,
  metadata: true,
  store: true,
  signal: true,
  maxTurns: true,
  modelSettings: true,
  durability: true,
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

export const CANCEL_OPTION_NAMES = optionNames<CancelOptions>({ userId: true, store: true });

export const SESSION_RUN_OPTION_NAMES = optionNames<SessionRunOptions>({
  signal: true,
  maxTurns: true,
  modelSettings: true,
  durability: true,
});

/** `session.resume()` keeps the run's stored model settings. */
export const SESSION_RESUME_OPTION_NAMES = SESSION_RUN_OPTION_NAMES.filter(
  (name) => name !== 'modelSettings',
);

export const RUN_ACTION_OPTION_NAMES = optionNames<RunActionOptions>({
  signal: true,
  metadata: true,
  progress: true,
  onRunSnapshot: true,
  maxTurns: true,
  modelSettings: true,
  ephemeral: true,
  durability: true,
});

/** `ContinueRunOptions`: `RunActionOptions` but `modelSettings`, plus `decisions`. */
export const CONTINUE_RUN_OPTION_NAMES = [
  ...RUN_ACTION_OPTION_NAMES.filter((name) => name !== 'modelSettings'),
  ...optionNames<Omit<ContinueRunOptions, keyof RunActionOptions>>({
    decisions: true,
    by: true,
    via: true,
  }),
];

/**
 * Checks the options of a call that runs the agent (`agent.run()`, `agent.stream()`,
 * `agent.resume()`, `session.run()`, `sendMessage()`, ...) against `names`: unknown names,
 * and each option's kind (`maxTurns` a positive integer, `signal` an AbortSignal, ...).
 */
export function checkRunOptions(call: string, options: unknown, names: readonly string[]): void {
  new OptionChecker(call, options, names)
    .nonEmptyString('sessionId')
    .nonEmptyString('userId')
    .object('metadata')
    .check('metadata', 'plain JSON (it is stored with the run)', (v) => isPlainJson(v))
    .implements('store', 'SessionStore', SESSION_STORE_METHODS)
    .instanceOf('signal', AbortSignal)
    .positiveInteger('maxTurns')
    .function('progress')
    .function('onRunSnapshot')
    .check('ephemeral', 'a boolean', (v) => typeof v === 'boolean')
    .array('decisions')
    .nonEmptyString('by')
    .check('via', "'api', 'page' or 'cli'", (v) => v === 'api' || v === 'page' || v === 'cli')
    .check('durability', DURABILITY_EXPECTED, isDurability);
  const settings = isObject(options) ? options['modelSettings'] : undefined;
  if (settings !== undefined) checkModelSettings(call, settings);
}

/** Checks a run's input and options together (input first: it is the first argument). */
export function checkRunCall(
  call: string,
  input: unknown,
  options: unknown,
  names: readonly string[],
): void {
  checkRunInput(call, input);
  checkRunOptions(call, options, names);
}
