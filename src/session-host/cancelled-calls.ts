import type { SessionLog } from '../actors/session-log.js';
import type { Item } from '../items/item.js';
import type { RunMachineContext } from '../machines/run-types.js';

/**
 * Answers each tool call of a cancelled run's turn still without a result with one saying so,
 * so the next model call reads no call left unanswered (which chat APIs refuse).
 */
export function answerCancelledCalls(run: RunMachineContext, log: SessionLog): void {
  run.calls.forEach((call, index) => {
    if (call.done) return;
    const result: Item = {
      type: 'tool_result',
      callId: call.callId,
      name: call.name,
      output: `The run was cancelled before the call to "${call.name}" returned a result.`,
      isError: true,
    };
    if (run.resultsAt === undefined) log.append([result]);
    else log.place(run.resultsAt + index, result);
  });
}
