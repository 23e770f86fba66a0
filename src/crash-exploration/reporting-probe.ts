import type { ProbedToolCall, RuntimeProbe } from '../core/runtime-probe.js';
import type { Execution } from './execution-probe.js';
import type { LifeEvent } from './life-event.js';

/**
 * `probe` (an `executionProbe` that keeps each execution in `executions`), also telling `note`
 * when one of those returned, by its index: a child process prints that fact for its parent.
 */
export function reportingProbe(
  probe: RuntimeProbe,
  executions: readonly Execution[],
  note: (event: LifeEvent) => void,
): RuntimeProbe {
  const running = new Map<string, number>();
  const id = (call: ProbedToolCall): string => `${call.runId}:${call.callId}`;
  return {
    ...probe,
    toolStarting: (call) => {
      const index = executions.length;
      const started = probe.toolStarting?.(call);
      if (executions.length > index) running.set(id(call), index);
      return started;
    },
    toolFinished: (call) => {
      probe.toolFinished?.(call);
      const index = running.get(id(call));
      running.delete(id(call));
      if (index !== undefined) note({ type: 'finished', index });
    },
  };
}
