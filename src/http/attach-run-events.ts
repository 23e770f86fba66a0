import type { RunStreamEvent } from '../agent/run-stream.js';
import type { AttachEvent } from '../runs/attach-events.js';
import type { RunEnding } from './ui-chunk-translator.js';

/** An attach event as the run stream event the translators (`RunParts`) read. */
export function runStreamEventOf(
  event: Exclude<AttachEvent, { type: 'run_ended' }>,
): RunStreamEvent<unknown> {
  const { runId } = event;
  switch (event.type) {
    case 'step_started':
      return { type: 'state_entered', runId, state: 'modelCall' };
    case 'text':
      return { type: 'text_delta', runId, delta: event.text };
    case 'tool_call':
      return {
        type: 'tool_call_started',
        runId,
        callId: event.callId,
        name: event.name,
        arguments: event.arguments,
      };
    case 'tool_result':
      return {
        type: 'tool_call_finished',
        runId,
        callId: event.callId,
        name: '',
        output: event.output,
        isError: event.isError,
      };
    case 'approval_requested':
      return {
        type: 'approval_requested',
        runId,
        interruption: {
          callId: event.callId,
          toolName: event.name,
          arguments: event.arguments,
          agent: '',
        },
      };
  }
}

/** How a run that ended or paused ends a stream (an attach `run_ended`, or a stored status). */
export function endingOf(
  event: Pick<Extract<AttachEvent, { type: 'run_ended' }>, 'status' | 'interruption' | 'error'>,
): RunEnding {
  switch (event.status) {
    case 'awaitingApproval':
      return { interrupted: true, interruptionReason: 'approval' };
    case 'interrupted':
      return { interrupted: true, interruptionReason: event.interruption, error: event.error };
    case 'cancelled':
      return {
        interrupted: false,
        error: { code: 'RUN_CANCELLED', message: 'The run was cancelled' },
      };
    case 'crashed':
      return {
        interrupted: false,
        error: { code: 'RUN_CRASHED', message: 'The run stopped with its process' },
      };
    case 'completed':
    case 'failed':
    case 'running':
      return { interrupted: false, error: event.error };
  }
}
