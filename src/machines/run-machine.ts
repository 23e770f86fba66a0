/* eslint-disable max-lines -- Long on purpose: the run machine is one statechart, read top to
 * bottom as one chart (its actors, guards, actions and states side by side). Its pure parts live
 * in files of their own: turn steps, call approvals, sub-agent runs, guardrail steps, step inputs
 * and budgets.
 */
import { assign, enqueueActions, sendTo, setup, stopChild } from 'xstate';
import { builtOnce } from './built-once.js';
import { notProvided } from './not-provided.js';
import { runOutput } from './run-output.js';
import type { StepDoneEvent, StepErrorEvent } from './step-events.js';
import type {
  ApprovalCheckInput,
  ApprovalCheckOutput,
  DurableTimerInput,
  DurableTimerOutput,
  ModelStepInput,
  ModelStepOutput,
  ToolCallInput,
  ToolCallOutput,
} from './step-actor-io.js';
import type {
  CallState,
  RunEvent,
  RunMachineContext,
  RunMachineInput,
  RunMachineOutput,
} from './run-types.js';
import { budgetExhausted } from './budget-left.js';
import { approvalCheckInput, modelStepInput, toolCallInput } from './step-inputs.js';
import { zeroUsage } from './run-usage.js';
import { startingNextStep, stepStartsNoted, withStepStart } from './step-starts.js';
import type { GuardrailCheckInput, GuardrailCheckOutput } from './guardrail-types.js';
import {
  afterSubRun,
  childRunInput,
  forThisRun,
  isSubRunActor,
  subRunActorId,
  subRunIds,
} from './sub-runs.js';
import { afterModelStep, afterToolCall, modelAnswerGuards, toolActorId } from './turn-steps.js';
import {
  lastCallEndsTurn,
  maxTurnsReached,
  nextTurnAfterToolCall,
  subRunOutOfTurns,
  turnCleared,
} from './turn-start.js';
import {
  decide,
  nextDeadline,
  pendingApproval,
  rejectOverdue,
  withCheckedApprovals,
} from './call-approvals.js';
import {
  afterGuardrails,
  guardrailError,
  guardrailGuards,
  guardrailStates,
} from './guardrail-steps.js';
import { serializeError } from '../errors/agentstate-error.js';
import {
  afterAsk,
  askingOperator,
  awaitingOperator,
  inDoubtResolved,
  withResolution,
} from './calls-in-doubt.js';

/** Bumped whenever a state or actor is renamed; stored beside every snapshot. */
export const RUN_MACHINE_VERSION = '1';

/** An approved sub-agent call whose child run has not ended: its tool call comes after it. */
const startsSubRun = (call: CallState): boolean =>
  call.subRun !== undefined && call.decision !== 'rejected' && !call.subResult;

/**
 * Whether a call of the turn starts its tool call now (`spawnToolCalls`): not done, not running
 * (`running`: the run's children), not waiting for an operator (a call in doubt runs once
 * resolved), not an approved sub-agent call whose child run comes first.
 */
const startsToolCall = (call: CallState, running: Record<string, unknown>): boolean =>
  !call.done && !running[toolActorId(call)] && !askingOperator(call) && !startsSubRun(call);

/**
 * The model's answer, the event of the transition that goes from `modelCall` to `tools` (its
 * output carries the calls): that transition notes the calls' starts (`recordAnswerWithCalls`).
 */
const isModelAnswer = (event: unknown): boolean =>
  Array.isArray((event as { output?: { toolCalls?: unknown } }).output?.toolCalls);

/** The output of the step actor whose `onDone` event a guard or named action reads. */
const outputOf = <T>(event: unknown): T => (event as { output: T }).output;

/** Codes of a model step's failure that interrupt the run (reason `error`) instead of ending it. */
const RESUMABLE_MODEL_CODES: ReadonlySet<string> = new Set(['MODEL_ERROR', 'MODEL_BEHAVIOR']);

/**
 * One run's execution: call the model, check approvals, run tool calls in parallel, repeat
 * until the model answers without tools. Pure: every side effect is a named actor that the
 * runtime provides (`modelStep`, `approvalCheck`, `toolCall`, `durableTimer`, `guardrailCheck`,
 * `subRun`), each with its own deps, in one place: `session-host/run-wiring.ts`. Context is plain
 * JSON and holds the current turn only; the conversation lives in the session's history log.
 * Built at its first use (`builtOnce`): building a machine is the larger part of what the
 * package's own import would otherwise evaluate.
 */
export const runMachine = builtOnce(() =>
  setup({
    types: {
      context: {} as RunMachineContext,
      input: {} as RunMachineInput,
      events: {} as RunEvent | StepDoneEvent | StepErrorEvent,
      output: {} as RunMachineOutput,
    },
    actors: {
      modelStep: notProvided<ModelStepOutput, ModelStepInput>('modelStep'),
      approvalCheck: notProvided<ApprovalCheckOutput, ApprovalCheckInput>('approvalCheck'),
      toolCall: notProvided<ToolCallOutput, ToolCallInput>('toolCall'),
      durableTimer: notProvided<DurableTimerOutput, DurableTimerInput>('durableTimer'),
      guardrailCheck: notProvided<GuardrailCheckOutput, GuardrailCheckInput>('guardrailCheck'),
      // The run machine itself, for sub-agent calls (the runtime provides it with its actors).
      subRun: notProvided<RunMachineOutput, RunMachineInput>('subRun'),
    },
    // The routing guards read the event a transition takes in (a model answer, an approval
    // check, a child that ended), so that one transition both records it and goes where it leads:
    // no transient routing state, one microstep and one context copy (one assign) each.
    guards: {
      maxTurnsReached: ({ context }) => maxTurnsReached(context),
      subRunOutOfTurns: ({ context }) => subRunOutOfTurns(context),
      subRunEnded: ({ event }) => isSubRunActor((event as { actorId: string }).actorId),
      budgetExhausted: ({ context }) => budgetExhausted(context),
      ...modelAnswerGuards,
      ...guardrailGuards,
      /**
       * On the approval check's `onDone`: a call still waits for a human's decision (the calls
       * as `recordApprovalCheck` stores them; an approval path, not every message's).
       */
      awaitingDecisions: ({ context, event }) =>
        withCheckedApprovals(context, outputOf<ApprovalCheckOutput>(event)).some(pendingApproval),
      hasDeadline: ({ context }) => nextDeadline(context.calls) !== undefined,
      /** On a tool call's `onDone`: the call is in doubt and its tool asks an operator. */
      callAsks: ({ event }) => outputOf<ToolCallOutput>(event).ask !== undefined,
      awaitingOperator: ({ context }) => awaitingOperator(context),
      inDoubtResolved: ({ context }) => inDoubtResolved(context),
      allCallsDone: ({ context }) => context.calls.every((c) => c.done),
      /** In `tools`: the turn's last call ended and its next turn starts with the model. */
      lastCallEndsTurn: ({ context, event }) =>
        lastCallEndsTurn(context, (event as { actorId: string }).actorId),
      modelCallFailed: ({ event }) =>
        RESUMABLE_MODEL_CODES.has(
          serializeError((event as { error?: unknown }).error, 'MODEL_ERROR').code,
        ),
    },
    actions: {
      /** The turn starts (with its model call or input guardrails): what it clears, its start. */
      startTurn: assign(({ context, system }) =>
        startingNextStep(system, context, turnCleared(context)),
      ),
      recordModelStep: assign(({ context, event }) =>
        afterModelStep(context, outputOf<ModelStepOutput>(event)),
      ),
      /** The answer taken in, and the start of the step it leads to (an approval or guardrail check). */
      recordAnswerAndNextStep: assign(({ context, event, system }) =>
        startingNextStep(
          system,
          context,
          afterModelStep(context, outputOf<ModelStepOutput>(event)),
        ),
      ),
      /** The answer's calls taken in, and the starts of the tool calls `tools` then runs. */
      recordAnswerWithCalls: assign(({ context, event, system }) => {
        const patch = afterModelStep(context, outputOf<ModelStepOutput>(event));
        const steps = (patch.calls ?? []).filter((c) => startsToolCall(c, {})).map((c) => c.step);
        return { ...patch, ...stepStartsNoted(system, { ...context, ...patch }, steps) };
      }),
      completeAfterModelStep: assign(({ context, event }) => ({
        ...afterModelStep(context, outputOf<ModelStepOutput>(event)),
        outcome: 'completed' as const,
      })),
      recordApprovalCheck: assign(({ context, event }) => ({
        step: context.step + 1,
        calls: withCheckedApprovals(context, outputOf<ApprovalCheckOutput>(event)),
      })),
      recordGuardrails: assign(({ context, event }) =>
        afterGuardrails(context, outputOf<GuardrailCheckOutput>(event)),
      ),
      /** The input guardrails' results, and the start of the model call they lead to. */
      recordInputGuardrails: assign(({ context, event, system }) =>
        startingNextStep(
          system,
          context,
          afterGuardrails(context, outputOf<GuardrailCheckOutput>(event)),
        ),
      ),
      completeAfterGuardrails: assign(({ context, event }) => ({
        ...afterGuardrails(context, outputOf<GuardrailCheckOutput>(event)),
        outcome: 'completed' as const,
      })),
      guardrailFailed: assign({ error: ({ event }) => guardrailError(event) }),
      /**
       * Notes in the context that `steps` start, in the transition that starts them (so no event
       * of their own does: one microstep, one context copy and one snapshot less per step), with
       * the runtime's clock (`StepStartNoter`). Without it (the bare machine) it notes nothing,
       * and a step then notes its own start (a `STEP_STARTED` event). Used for the tool calls
       * `tools` starts on its own; the start of a model call, an approval or guardrail check and a
       * fresh answer's tool calls is noted by the assign of the transition that goes to it
       * (`startingNextStep`, `recordAnswerWithCalls`): one context copy less.
       */
      noteStepStarts: assign(({ context, system }, params: { steps: number[] }) =>
        stepStartsNoted(system, context, params.steps),
      ),
      spawnToolCalls: enqueueActions(({ context, enqueue, self, event }) => {
        const running = self.getSnapshot().children as Record<string, unknown>;
        const steps: number[] = [];
        for (const [index, call] of context.calls.entries()) {
          if (startsToolCall(call, running)) {
            steps.push(call.step);
            enqueue.spawnChild('toolCall', {
              id: toolActorId(call),
              input: toolCallInput(context, call, index),
            });
            continue;
          }
          // A call in doubt waiting for an operator runs once resolved.
          if (call.done || running[toolActorId(call)] || askingOperator(call)) continue;
          // An approved sub-agent call starts its child run; once that ended, its result is
          // journaled by a toolCall like any tool's. (The snapshot read here is the one before
          // this transition: a child stopped by it is still listed.)
          if (running[subRunActorId(call)]) continue;
          enqueue.spawnChild('subRun', {
            id: subRunActorId(call),
            input: childRunInput(context, call),
          });
        }
        // The calls start once this transition's snapshot is set: their starts noted in it (by
        // the transition's own assign when it took the model's answer in).
        // (A named action with params: `setup`'s actions do not type each other, hence the cast.)
        if (steps.length > 0 && !isModelAnswer(event)) {
          enqueue({ type: 'noteStepStarts', params: { steps } } as never);
        }
      }),
      /** Passes a decision or CONTINUE on to the sub-agent runs in flight (they pick theirs). */
      forwardToSubRuns: enqueueActions(({ enqueue, self, event }) => {
        for (const id of subRunIds(self)) enqueue(sendTo(id, event));
      }),
    },
  }).createMachine({
    id: 'run',
    context: ({ input }) => ({
      ...input,
      turn: 0,
      step: 0,
      usage: zeroUsage(),
      calls: [],
      newDecisions: {},
    }),
    initial: 'turnStart',
    on: {
      // From any state, paused ones included: a cancelled run ends `cancelled` (and stops its
      // sub-agent runs with it).
      CANCEL: { target: '.cancelled' },
      STEP_STARTED: { actions: assign(({ context, event }) => withStepStart(context, event)) },
      // A decision about a sub-agent's call goes down to the sub-agent runs.
      APPROVE: {
        guard: ({ context, event }) => !forThisRun(context, event),
        actions: 'forwardToSubRuns',
      },
      REJECT: {
        guard: ({ context, event }) => !forThisRun(context, event),
        actions: 'forwardToSubRuns',
      },
      RESOLVE_IN_DOUBT: {
        guard: ({ context, event }) => !forThisRun(context, event),
        actions: 'forwardToSubRuns',
      },
    },
    states: {
      turnStart: {
        always: [
          {
            // A sub-agent that runs out of turns fails: its parent's model reads why.
            guard: 'subRunOutOfTurns',
            target: 'failed',
            actions: assign({
              error: ({ context }) => ({
                name: 'MaxTurnsExceededError',
                code: 'MAX_TURNS_EXCEEDED',
                message: `The sub-agent "${context.agentName}" reached its limit of ${context.maxTurns} turn(s)`,
              }),
            }),
          },
          {
            guard: 'maxTurnsReached',
            target: 'interrupted',
            actions: assign({ interruption: 'maxTurns' }),
          },
          {
            guard: 'budgetExhausted',
            target: 'interrupted',
            actions: assign({ interruption: 'budget' }),
          },
          { guard: 'needsInputGuardrails', target: 'inputGuardrails', actions: 'startTurn' },
          { target: 'modelCall', actions: 'startTurn' },
        ],
      },
      ...guardrailStates,
      // Every transition that goes to a step's state notes the step's start in its assign
      // (`startingNextStep`): its state has no entry action for it (one context copy less).
      modelCall: {
        invoke: {
          src: 'modelStep',
          input: ({ context }) => modelStepInput(context),
          // The answer, taken in, leads to: its calls (checked first if a tool asks), a failure
          // (an output that did not validate), the output guardrails, or the run's completion.
          onDone: [
            { guard: 'needsCheck', target: 'approvals', actions: 'recordAnswerAndNextStep' },
            { guard: 'hasCalls', target: 'tools', actions: 'recordAnswerWithCalls' },
            { guard: 'outputInvalid', target: 'failed', actions: 'recordModelStep' },
            {
              guard: 'needsOutputGuardrails',
              target: 'outputGuardrails',
              actions: 'recordAnswerAndNextStep',
            },
            { target: 'completed', actions: 'completeAfterModelStep' },
          ],
          // A failed model call (after the model's own retries) interrupts the run: nothing was
          // journaled for it, so CONTINUE calls the model again at the same step. Other failures
          // of the step (an unpriced model under a cost budget, ...) end the run.
          onError: [
            {
              guard: 'modelCallFailed',
              target: 'interrupted',
              actions: assign({
                interruption: 'error',
                error: ({ event }) => serializeError(event.error, 'MODEL_ERROR'),
              }),
            },
            {
              target: 'failed',
              actions: assign({ error: ({ event }) => serializeError(event.error, 'MODEL_ERROR') }),
            },
          ],
        },
      },
      // A compound state of one child: stored snapshots hold `{ approvals: 'checking' }`.
      approvals: {
        initial: 'checking',
        states: {
          checking: {
            invoke: {
              src: 'approvalCheck',
              input: ({ context }) => approvalCheckInput(context),
              onDone: [
                {
                  guard: 'awaitingDecisions',
                  target: '#run.awaitingApproval',
                  actions: 'recordApprovalCheck',
                },
                { target: '#run.tools', actions: 'recordApprovalCheck' },
              ],
              onError: {
                target: '#run.failed',
                actions: assign({
                  error: ({ event }) => serializeError(event.error, 'APPROVAL_CHECK_FAILED'),
                }),
              },
            },
          },
        },
      },
      awaitingApproval: {
        // Decisions recorded with `hold` (the command line) wait here for a CONTINUE.
        always: {
          guard: ({ context }) => !context.held && !context.calls.some(pendingApproval),
          target: 'tools',
        },
        invoke: {
          src: 'durableTimer',
          input: ({ context }) => ({
            deadline: nextDeadline(context.calls) ?? Number.MAX_SAFE_INTEGER,
          }),
          onDone: {
            target: 'awaitingApproval',
            reenter: true,
            actions: assign({
              calls: ({ context, event }) => rejectOverdue(context.calls, event.output.firedAt),
            }),
          },
        },
        on: {
          APPROVE: {
            guard: ({ context, event }) =>
              forThisRun(context, event) &&
              context.calls.some((c) => c.callId === event.callId && pendingApproval(c)),
            actions: assign(({ context, event }) => ({
              ...decide(context, event.callId, 'approved', event.always),
              ...(event.hold ? { held: true } : {}),
            })),
          },
          REJECT: {
            guard: ({ context, event }) =>
              forThisRun(context, event) &&
              context.calls.some((c) => c.callId === event.callId && pendingApproval(c)),
            actions: assign(({ context, event }) => ({
              ...decide(context, event.callId, 'rejected', event.always, event.message),
              ...(event.hold ? { held: true } : {}),
            })),
          },
          CONTINUE: { actions: assign({ held: false }) },
        },
      },
      tools: {
        entry: 'spawnToolCalls',
        on: {
          'xstate.done.actor.*': [
            {
              // A sub-agent's run ended: its outcome becomes the call's result (journaled by a
              // toolCall), its usage and decisions join the parent's.
              guard: 'subRunEnded',
              actions: [
                stopChild(({ event }) => event.actorId),
                assign(({ context, event }) =>
                  afterSubRun(context, event.actorId, event.output as RunMachineOutput),
                ),
                'spawnToolCalls',
              ],
            },
            {
              // A call in doubt whose tool asks an operator: it waits (nothing journaled).
              guard: 'callAsks',
              actions: [
                stopChild(({ event }) => event.actorId),
                assign(({ context, event }) =>
                  afterAsk(context, event.actorId, outputOf<ToolCallOutput>(event).ask!),
                ),
              ],
            },
            {
              // The turn's last call ended: on to the next model call in this one transition.
              guard: 'lastCallEndsTurn',
              target: 'modelCall',
              actions: [
                stopChild(({ event }) => event.actorId),
                assign(({ context, event, system }) =>
                  startingNextStep(system, context, nextTurnAfterToolCall(context, event.actorId)),
                ),
              ],
            },
            {
              actions: [
                stopChild(({ event }) => event.actorId),
                assign(({ context, event }) => afterToolCall(context, event.actorId)),
              ],
            },
          ],
          'xstate.error.actor.*': {
            target: 'failed',
            actions: assign({
              error: ({ event }) => serializeError(event.error, 'TOOL_STEP_FAILED'),
            }),
          },
          // The run's budget refreshed, a child's model call retried: on to the children.
          CONTINUE: {
            actions: [
              assign(({ context, event }) => ({ budget: event.budget ?? context.budget })),
              'forwardToSubRuns',
            ],
          },
        },
        // The turn's last call ended but something stops the run or comes before its next model
        // call (a limit): `turnStart` decides where it goes. Calls in doubt that wait for an
        // operator, once nothing else runs, pause the run.
        always: [
          { guard: 'allCallsDone', target: 'turnStart' },
          {
            guard: 'awaitingOperator',
            target: 'interrupted',
            actions: assign({ interruption: 'in_doubt' }),
          },
        ],
      },
      interrupted: {
        // Every call in doubt resolved (and not held): the calls run on with their resolutions.
        always: {
          guard: 'inDoubtResolved',
          target: 'tools',
          actions: assign({ interruption: undefined, held: undefined }),
        },
        on: {
          RESOLVE_IN_DOUBT: {
            guard: ({ context, event }) =>
              forThisRun(context, event) &&
              context.interruption === 'in_doubt' &&
              context.calls.some((c) => c.callId === event.callId && askingOperator(c)),
            actions: assign(({ context, event }) => ({
              ...withResolution(context, event.callId, event.resolution),
              ...(event.hold ? { held: true } : {}),
            })),
          },
          CONTINUE: [
            {
              // Calls in doubt stay where they are: a CONTINUE lifts a hold (or changes nothing).
              guard: ({ context }) => context.interruption === 'in_doubt',
              actions: assign(({ context, event }) => ({
                maxTurns: event.maxTurns ?? context.maxTurns,
                budget: event.budget ?? context.budget,
                held: false,
              })),
            },
            {
              target: 'turnStart',
              actions: assign(({ context, event }) => ({
                maxTurns: event.maxTurns ?? context.maxTurns,
                budget: event.budget ?? context.budget,
              })),
            },
          ],
        },
      },
      // Its outcome is set by the transitions that complete the run (with what they take in).
      completed: { type: 'final' },
      failed: { type: 'final', entry: assign({ outcome: 'failed' }) },
      cancelled: { type: 'final', entry: assign({ outcome: 'cancelled' }) },
    },
    output: ({ context }) => runOutput(context),
  }),
);

export type RunMachine = ReturnType<typeof runMachine>;
