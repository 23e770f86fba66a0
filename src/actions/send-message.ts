import { jsonCopy } from '../validation/plain-json.js';
import { newId } from '../core/new-id.js';
import type { RunInput } from '../items/item.js';
import { checkToolChoice, mergeModelSettings } from '../models/model-settings.js';
import { runBudget } from '../runs/run-budget.js';
import { hasBlockingInputGuardrails } from '../guardrails/evaluate-guardrails.js';
import { readRunResult, type RunResult } from '../session-host/run-result.js';
import type { ActionContext, SessionAction } from './session-action.js';
import { RUN_ACTION_OPTION_NAMES, checkRunCall } from './run-call-checks.js';
import type { RunActionOptions } from './run-options.js';
import { messageOf, type Message } from './message.js';
import { answeringRun } from '../machines/answered-messages.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';

/** Current run budget of a loaded session (session and per-user limits, net of usage). */
export function currentBudget(ctx: ActionContext) {
  const session = ctx.host.context();
  return runBudget(
    { budget: session.config.budget, used: session.usage },
    { budget: ctx.userBudget, used: ctx.userUsage },
  );
}

/**
 * Starts a run with `input` in the session (created if missing): the prior turns are in the
 * history the model reads. Resolves when the run completes or pauses. A session whose run is
 * paused or crashed raises `RunPausedError` (resume or cancel it first) and nothing is saved.
 */
export function sendMessage<T = string>(
  input: RunInput,
  options: RunActionOptions = {},
): SessionAction<RunResult<T>> {
  checkRunCall('sendMessage()', input, options, RUN_ACTION_OPTION_NAMES);
  return messageAction<T>(messageOf(input, options));
}

/**
 * The session action of a message whose arguments were checked at its call: it carries the
 * message for admission to read, and its run starts from it (`startMessageRun`).
 */
export function messageAction<T = string>(message: Message): SessionAction<RunResult<T>> {
  const { options } = message;
  return {
    name: 'sendMessage',
    createIfMissing: true,
    runs: true,
    observe: options,
    whileBusy: options.whileBusy,
    message,
    event: { type: 'SEND_MESSAGE', run: placeholderRun },
    // An id the session answered (or is answering elsewhere) runs nothing: checked on the
    // record read for this action's save, under the session's lease and version check.
    check({ key, record }) {
      const { messageId } = options;
      if (messageId === undefined) return;
      const runId = answeringRun(record.snapshot, messageId);
      if (runId !== undefined) {
        throw new MessageAnsweredError(key.sessionId, messageId, runId, false);
      }
    },
    apply: (ctx) => startMessageRun<T>(ctx, message),
  };
}

/**
 * The run of a message, in the session loaded for it: its items appended to the history, the
 * run started in the session actor, and its result once it completes or pauses.
 */
export async function startMessageRun<T>(
  ctx: ActionContext,
  message: Message,
): Promise<RunResult<T>> {
  const { items, options } = message;
  const { host, key, clock, binding } = ctx;
  const modelSettings = mergeModelSettings(binding.options.modelSettings, options.modelSettings);
  // Before the run starts: a tool the agent does not have is the caller's mistake (checked
  // here unless the call could check it).
  if (message.toolChoiceChecked !== true) {
    checkToolChoice('sendMessage()', modelSettings, [...binding.tools.keys()]);
  }
  const budget = currentBudget(ctx);
  const historyStart = host.log.length;
  host.log.append(items);
  const runId = newId();
  host.log.knowRun(runId); // a new id: none of its steps can be in the store's journal
  const agentName = binding.options.name;
  // The run's span starts now: its trace context is stored with the run (resumes continue it).
  const trace = host.observer?.startRun({ runId, agentName });
  host.log.auditRun(runId); // the action's audit entry names the run it started
  host.send(
    {
      type: 'SEND_MESSAGE',
      ...(options.messageId === undefined ? {} : { messageId: options.messageId }),
      run: {
        runId,
        sessionId: key.sessionId,
        agentName,
        maxTurns: options.maxTurns ?? binding.options.maxTurns ?? 10,
        historyStart,
        inputCount: items.length,
        startedAt: clock.now(),
        budget,
        standingDecisions: {},
        ...(options.metadata ? { metadata: jsonCopy(options.metadata) } : {}),
        ...(modelSettings ? { modelSettings: { ...modelSettings } } : {}),
        ...(hasBlockingInputGuardrails(binding.options) ? { inputGuardrails: true } : {}),
        ...(trace ? { trace } : {}),
        definition: { ...binding.storedDefinition },
      },
    },
    'sendMessage',
  );
  await host.settle();
  return readRunResult<T>(host, clock, options.ephemeral === true);
}

/** Only the event type matters for the up-front transition check. */
const placeholderRun = {
  runId: '',
  sessionId: '',
  agentName: '',
  maxTurns: 0,
  historyStart: 0,
  inputCount: 0,
  startedAt: 0,
  budget: {},
  standingDecisions: {},
};
