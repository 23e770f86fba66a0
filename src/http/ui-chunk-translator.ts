import type { RunStreamEvent } from '../agent/run-stream.js';
import type { RunResult } from '../session-host/run-result.js';
import type { HttpError } from './http-error.js';
import { RunParts, type RunPart } from './run-parts.js';
import type { RunEventTranslator } from './sse-run-stream.js';
import { parsedArguments, type UiMessageChunk } from './ui-message-chunk.js';

/**
 * Turns one run's stream events into UI message chunks: the run's parts (`RunParts`: a step
 * per model call, its text as one text part, each tool call as a tool part with its input then
 * its output, a call waiting for approval as a tool part in `approval-requested` whose approval
 * id is the call id) in the AI SDK's chunks, `start` first and `finish` last. `decided` are the
 * calls this request decides: their parts exist on the client already, and a rejected one ends
 * `output-denied`.
 */
export class UiChunkTranslator implements RunEventTranslator<UiMessageChunk> {
  private started = false;
  private readonly parts: RunParts;

  constructor(decided: ReadonlyMap<string, boolean> = new Map()) {
    this.parts = new RunParts(decided);
  }

  /** The chunks of one event (the first event also opens the message, `run_finished` ends it). */
  translate(event: RunStreamEvent<unknown>): UiMessageChunk[] {
    if (event.type === 'run_finished') return this.finish({ result: event.result });
    const out = this.begin();
    for (const part of this.parts.read(event)) out.push(...chunksOf(part));
    return out;
  }

  /** The chunks that end the message after the stream failed. */
  failed(error: HttpError): UiMessageChunk[] {
    return this.finish({ error: `${error.code}: ${error.message}` });
  }

  /** The chunks that end the message: after the run's result, or after an error. */
  finish(outcome: { result: RunEnding } | { error: string }): UiMessageChunk[] {
    const out = this.begin();
    for (const part of this.parts.close()) out.push(...chunksOf(part));
    if ('error' in outcome) {
      out.push(
        { type: 'error', errorText: outcome.error },
        { type: 'finish', finishReason: 'error' },
      );
      return out;
    }
    const { result } = outcome;
    if (result.error) {
      out.push({ type: 'error', errorText: `${result.error.code}: ${result.error.message}` });
    }
    out.push({ type: 'finish', finishReason: finishReasonOf(result) });
    return out;
  }

  /** `start` before the message's first chunk, nothing after. */
  private begin(): UiMessageChunk[] {
    if (this.started) return [];
    this.started = true;
    return [{ type: 'start' }];
  }
}

/** The UI message chunks of one run part. */
function chunksOf(part: RunPart): UiMessageChunk[] {
  switch (part.type) {
    case 'step-start':
      return [{ type: 'start-step' }];
    case 'step-end':
      return [{ type: 'finish-step' }];
    case 'text-start':
      return [{ type: 'text-start', id: `text-${part.text}` }];
    case 'text-delta':
      return [{ type: 'text-delta', id: `text-${part.text}`, delta: part.delta }];
    case 'text-end':
      return [{ type: 'text-end', id: `text-${part.text}` }];
    case 'tool-call': {
      const { callId, name, arguments: args } = part;
      const input = typeof args === 'string' ? parsedArguments(args) : args;
      return [{ type: 'tool-input-available', toolCallId: callId, toolName: name, input }];
    }
    case 'tool-result':
      if (part.denied) return [{ type: 'tool-output-denied', toolCallId: part.callId }];
      return [
        part.isError
          ? { type: 'tool-output-error', toolCallId: part.callId, errorText: part.output }
          : { type: 'tool-output-available', toolCallId: part.callId, output: part.output },
      ];
    case 'approval-request':
      return [{ type: 'tool-approval-request', approvalId: part.callId, toolCallId: part.callId }];
  }
}

/** How a run ended or paused, as far as the message's end shows it. */
export interface RunEnding {
  interrupted: boolean;
  interruptionReason?: RunResult<unknown>['interruptionReason'];
  error?: { code: string; message: string } | undefined;
}

/** Why the message ended, in the AI SDK's words. */
function finishReasonOf(result: RunEnding): 'stop' | 'tool-calls' | 'length' | 'error' | 'other' {
  if (!result.interrupted) return 'stop';
  switch (result.interruptionReason) {
    case 'approval':
      return 'tool-calls';
    case 'error':
      return 'error';
    // A call cut off by a crash waits for an operator (`agent.resolveInDoubt`).
    case 'in_doubt':
      return 'other';
    case 'budget':
    case 'maxTurns':
    case undefined:
      return 'length';
  }
}
