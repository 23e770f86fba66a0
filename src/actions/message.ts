import { toInputItems, type Item, type RunInput } from '../items/item.js';
import { jsonCopy } from '../validation/plain-json.js';
import type { RunActionOptions } from './run-options.js';

/**
 * One message on its way from the call to its run, as a value the stages pass on: the caller's
 * input as conversation items and the options of the run it starts. Built once its arguments
 * are checked (`checkRunCall`, at the call); admission (once per `options.messageId`, the busy
 * policy, the session's message inbox) reads it from the action that carries it
 * (`SessionAction.message`), and the run starts from it (`startMessageRun`).
 */
export interface Message {
  readonly items: Item[];
  readonly options: RunActionOptions;
  /**
   * Its `modelSettings.toolChoice` was checked at the call against the agent's tools (an agent
   * without toolkits knows them there); otherwise the run checks it once the agent is bound.
   */
  readonly toolChoiceChecked?: boolean | undefined;
}

/** The message of checked arguments (nothing is checked here: `checkRunCall` did). */
export function messageOf(
  input: RunInput,
  options: RunActionOptions,
  toolChoiceChecked = false,
): Message {
  return { items: toInputItems(input), options, toolChoiceChecked };
}

/**
 * What a session's message inbox keeps of a queued message's options (plain JSON): its run's
 * `maxTurns`, `metadata` and `modelSettings`, and its `messageId` (answered once when it runs,
 * whichever process takes it).
 */
export function queuedOptions(message: Message): Record<string, unknown> {
  const { maxTurns, metadata, modelSettings, messageId } = message.options;
  return jsonCopy({
    ...(maxTurns === undefined ? {} : { maxTurns }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(modelSettings === undefined ? {} : { modelSettings }),
    ...(messageId === undefined ? {} : { messageId }),
  });
}
