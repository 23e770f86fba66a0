import { fromPromise } from 'xstate';
import type { ToolResultItem } from '../items/item.js';
import type { ToolCallInput, ToolCallOutput } from '../machines/run-types.js';
import { invokeTool } from '../tools/invoke-tool.js';
import { combinedSignal, stepDepsOf, type StepDepsSource } from './step-deps.js';

/**
 * One tool call, journaled. A rejected call does not run: the model reads the rejection. A
 * call restored after a crash replays its journaled result; only a call that was in flight
 * runs again, with the same call id for the tool to use as an idempotency key.
 */
export function toolCall(source: StepDepsSource) {
  return fromPromise<ToolCallOutput, ToolCallInput>(async ({ input, signal, system }) => {
    const deps = stepDepsOf(source, system);
    const hit = await deps.log.find(input.runId, input.step);
    if (hit) {
      const replayed = hit.output as ToolCallOutput;
      if (input.position !== undefined && replayed.result) {
        deps.log.place(input.position, replayed.result);
      }
      return replayed;
    }
    await deps.durable();
    const stepSignal = combinedSignal(deps, signal);
    // Cancelled while it waited (a crashed run restored only to be cancelled): do not run.
    stepSignal.throwIfAborted();
    const { call, runId } = input;
    deps.progress?.({
      type: 'tool_call_started',
      runId,
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
    });
    const result: ToolResultItem = input.rejection
      ? {
          type: 'tool_result',
          callId: call.callId,
          name: call.name,
          output: input.rejection.message,
          isError: true,
        }
      : await invokeTool(
          deps.tools,
          { type: 'tool_call', ...call },
          deps.contextFor(runId),
          stepSignal,
        );
    const output = toolOutput(result);
    const entry = { runId, step: input.step, kind: 'tool' as const, output, at: deps.clock.now() };
    if (input.position === undefined) {
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
    });
    return output;
  });
}

function toolOutput(result: ToolResultItem): ToolCallOutput {
  return { callId: result.callId, isError: result.isError === true, result };
}
