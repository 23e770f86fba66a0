import type { RuntimeMemory } from '../memory/runtime-memory.js';
import type { ToolResultItem } from '../items/item.js';
import { errorFromSerialized } from '../errors/error-from-serialized.js';
import type { ToolCallInput, ToolCallOutput } from '../machines/step-actor-io.js';
import { isSubRun } from '../machines/agent-path.js';
import { invokeTool } from '../tools/invoke-tool.js';
import { operatorOutcome, resolveInDoubt, type InDoubtOutcome } from '../tools/in-doubt.js';
import type { InDoubtRecord } from '../items/in-doubt-record.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import {
  combinedSignal,
  type CancellableStepDeps,
  type DepsOf,
  type JournaledStepDeps,
  journaledStep,
} from './journaled-step.js';
import type { StepProgress } from './step-progress.js';
import { stepEntry } from './step-timing.js';
import { probedToolCall, type RuntimeProbe } from '../core/runtime-probe.js';

/** What a tool call uses (besides its input): wired in session-host/run-wiring.ts. */
export interface ToolCallDeps extends JournaledStepDeps, CancellableStepDeps {
  /** Set while streaming: receives each call's start and finish. */
  progress?: ((event: StepProgress) => void) | undefined;
  /** The session's telemetry: an `execute_tool` span per call. */
  observer?: Pick<SessionObserver, 'tool'> | undefined;
  /** The session agent's memory: its tools get the run's (`ToolExecuteOptions.memory`). */
  memory?: RuntimeMemory | undefined;
  /** Test-only: told of each call's `execute` (crash exploration's effect checks). */
  probe?: RuntimeProbe | undefined;
}

/**
 * One tool call, journaled. A rejected call does not run: the model reads the rejection. A
 * call restored after a crash replays its journaled result; only a call that was in flight
 * runs again, with the same call id for the tool to use as an idempotency key.
 */
export function toolCall(depsOf: DepsOf<ToolCallDeps>) {
  return journaledStep<ToolCallOutput, ToolCallInput>(async ({ input, signal, system }) => {
    const deps = depsOf(system);
    const timing = deps.stepStarted(input.runId, input.step, {
      kind: 'tool',
      name: input.call.name,
      callId: input.call.callId,
    });
    // Not awaited when known (see model-step.ts): the step yields at `agentFor`, a promise.
    const journaled = deps.log.find(input.runId, input.step);
    const hit = journaled instanceof Promise ? await journaled : journaled;
    if (hit) {
      const replayed = hit.output as ToolCallOutput;
      if (input.position !== undefined && replayed.result) {
        deps.log.place(input.position, replayed.result);
      }
      return replayed;
    }
    const agent = await deps.agentFor(input.path, input.agent);
    const turn = deps.recoveryTurn(input.runId, input.step, signal);
    if (turn) await turn;
    await deps.durable('tool');
    const stepSignal = combinedSignal(deps, signal);
    // Cancelled while it waited (a crashed run restored only to be cancelled): do not run.
    stepSignal.throwIfAborted();
    const { call, runId } = input;
    const sub = isSubRun(input.path);
    const tag = sub ? { agentPath: input.path } : {};
    // A sub-agent call's child run already ran (and reported its own progress).
    if (!input.subResult) {
      deps.progress?.({
        type: 'tool_call_started',
        runId,
        callId: call.callId,
        name: call.name,
        arguments: call.arguments,
        ...tag,
      });
    }
    const { rejection } = input;
    // Started before the crash (its start was saved) and not journaled: in doubt. A rejected
    // call and a sub-agent's (its child run is journaled on its own) have no effect to doubt.
    // An operator's resolution applies, unless it was `'retry'` and a crash cut that run off
    // too (restarted again: in doubt again).
    let inDoubt: InDoubtRecord | undefined;
    let decided: ToolResultItem | undefined;
    let found: InDoubtOutcome | undefined;
    const operator = input.inDoubt;
    if (operator && (operator.action !== 'retry' || timing.restarts === 0)) {
      found = operatorOutcome({ type: 'tool_call', ...call }, operator);
    } else if (timing.restarts > 0 && !rejection && !input.subResult) {
      found = await resolveInDoubt(
        agent.tools,
        { type: 'tool_call', ...call },
        deps.contextFor(runId),
        stepSignal,
      );
      if (found.ask) {
        // Not journaled: the run pauses until an operator resolves the call.
        const { reconcile } = found.record;
        const asked = reconcile === 'unknown' || reconcile === 'error' ? { reconcile } : {};
        return { callId: call.callId, isError: false, ask: asked };
      }
    }
    if (found) {
      inDoubt = found.record;
      decided = found.result;
    }
    const result: ToolResultItem = decided
      ? decided
      : rejection
        ? // A rejected call does not run, but has its `execute_tool` span (rejected, an error).
          await executeTool(deps, input, () =>
            Promise.resolve({
              type: 'tool_result',
              callId: call.callId,
              name: call.name,
              output: rejection.message,
              isError: true,
            }),
          )
        : input.subResult
          ? subRunResult(call, input.subResult, input)
          : await executeTool(deps, input, () =>
              probedToolCall(
                deps.probe,
                {
                  runId,
                  callId: call.callId,
                  tool: call.name,
                  agentPath: input.path,
                  idempotent: agent.tools.get(call.name)?.idempotent === true,
                },
                () =>
                  invokeTool(
                    agent.tools,
                    { type: 'tool_call', ...call },
                    deps.contextFor(runId),
                    stepSignal,
                    sub ? undefined : deps.memory?.forRun(deps.contextFor(runId)),
                  ),
              ),
            );
    const output = {
      ...toolOutput(result),
      ...(inDoubt ? { inDoubt } : {}),
      ...(rejection && !decided ? { rejected: true as const } : {}),
    };
    const entry = stepEntry(input, 'tool', output, deps.clock.now(), timing);
    if (sub) {
      // A sub-agent's conversation is its journal: the result stays out of the history.
      deps.log.record(entry);
    } else if (input.position === undefined) {
      // A run from before results were ordered: its result joins in finishing order.
      deps.log.record(entry, [result]);
    } else {
      // Journaled at once (a finished call must not run again), placed in the model's order.
      deps.log.record(entry);
      deps.log.place(input.position, result);
    }
    deps.progress?.({
      type: 'tool_call_finished',
      runId,
      callId: call.callId,
      name: call.name,
      output: result.output,
      isError: output.isError,
      ...tag,
    });
    return output;
  }, depsOf);
}

/**
 * The result of a sub-agent call, from how its child run ended: its final output, or (when it
 * failed or was cancelled) a tool error item the parent's model reads. With `failParent` a
 * failed child fails the parent run with the child's error instead.
 */
function subRunResult(
  call: ToolCallInput['call'],
  ended: NonNullable<ToolCallInput['subResult']>,
  input: ToolCallInput,
): ToolResultItem {
  const base = { type: 'tool_result' as const, callId: call.callId, name: call.name };
  if (ended.status === 'completed') {
    const output =
      ended.structured === undefined ? (ended.output ?? '') : JSON.stringify(ended.structured);
    return { ...base, output };
  }
  const error = ended.error ?? {
    name: 'RunCancelledError',
    code: 'RUN_CANCELLED',
    message: 'The sub-agent run was cancelled',
  };
  if (ended.failParent) throw errorFromSerialized(error, { runId: input.runId });
  return {
    ...base,
    output: `Error: the sub-agent "${call.name}" ${ended.status === 'cancelled' ? 'was cancelled' : 'failed'}: ${error.message} (${error.code})`,
    isError: true,
  };
}

function toolOutput(result: ToolResultItem): ToolCallOutput {
  return { callId: result.callId, isError: result.isError === true, result };
}

/** Runs the tool, inside its `execute_tool` span when the session is traced. */
function executeTool(
  deps: ToolCallDeps,
  input: ToolCallInput,
  run: () => Promise<ToolResultItem>,
): Promise<ToolResultItem> {
  if (!deps.observer) return run();
  const { call, approval } = input;
  return deps.observer.tool(input.runId, { ...call, ...approval }, run);
}
