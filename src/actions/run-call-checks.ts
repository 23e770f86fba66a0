import { SESSION_STORE_METHODS, checkStoreOption } from '../persistence/store-supports.js';
import { checkModelSettings } from '../models/model-settings.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import { isPlainJson } from '../validation/plain-json.js';
import { checkRunInput } from '../validation/run-input-check.js';
import type { ContinueRunOptions } from './continue-run.js';
import type { RunActionOptions } from './run-options.js';
import { DURABILITY_EXPECTED, isDurability } from '../core/durability-policy.js';
import { WHILE_BUSY_EXPECTED, isWhileBusy } from '../core/busy-policy.js';
import { checkIdLength } from '../core/id-limit.js';

export const RUN_ACTION_OPTION_NAMES = optionNames<RunActionOptions>({
  signal: true,
  metadata: true,
  progress: true,
  onRunSnapshot: true,
  maxTurns: true,
  modelSettings: true,
  ephemeral: true,
  durability: true,
  whileBusy: true,
  messageId: true,
});

/** `ContinueRunOptions`: `RunActionOptions` but `modelSettings`, plus `decisions`. */
export const CONTINUE_RUN_OPTION_NAMES = [
  ...RUN_ACTION_OPTION_NAMES.filter((name) => name !== 'modelSettings' && name !== 'messageId'),
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
    .check('durability', DURABILITY_EXPECTED, isDurability)
    .check('whileBusy', WHILE_BUSY_EXPECTED, isWhileBusy)
    .nonEmptyString('messageId');
  checkStoreOption(call, options);
  const messageId = isObject(options) ? options['messageId'] : undefined;
  if (typeof messageId === 'string') checkIdLength('messageId', messageId);
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
