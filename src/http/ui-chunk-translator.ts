import type { RunStreamEvent } from '../agent/run-stream.js';
import type { RunResult } from '../session-host/run-result.js';
import { parsedArguments, type UiMessageChunk } from './ui-message-chunk.js';

/**
 * Turns one run's stream events into UI message chunks: a step per model call (`start-step`
 * when the run enters `modelCall`), its text as one text part, each tool call as a tool part
 * with its input then its output, and a call waiting for approval as a tool part in
 * `approval-requested` (its approval id is the call id). Sub-agent runs show only their
 * approvals. `decided` are the calls this request decides: their parts exist on the client
 * already, and a rejected one ends `output-denied`.
 */
export class UiChunkTranslator {
  private started = false;
  private stepOpen = false;
  private textId: string | undefined;
  private texts = 0;
  private readonly shown: Set<string>;

  constructor(private readonly decided: ReadonlyMap<string, boolean> = new Map()) {
    this.shown = new Set(decided.keys());
  }

  /** The chunks of one event (the first event also opens the message). */
  translate(event: RunStreamEvent<unknown>): UiMessageChunk[] {
    const out = this.begin();
    if (event.type === 'run_finished') return out;
    if (event.agentPath !== undefined && event.type !== 'approval_requested') return out;
    switch (event.type) {
      case 'state_entered':
        if (event.state === 'modelCall') {
          this.closeStep(out);
          this.openStep(out);
        }
        break;
      case 'text_delta':
        this.openStep(out);
        if (this.textId === undefined) {
          this.textId = `text-${++this.texts}`;
          out.push({ type: 'text-start', id: this.textId });
        }
        out.push({ type: 'text-delta', id: this.textId, delta: event.delta });
        break;
      case 'tool_call_started':
        this.openStep(out);
        this.closeText(out);
        this.showCall(out, event.callId, event.name, event.arguments);
        break;
      case 'tool_call_finished':
        this.openStep(out);
        out.push(this.outputOf(event.callId, event.output, event.isError));
        break;
      case 'approval_requested': {
        this.openStep(out);
        this.closeText(out);
        const { callId, toolName, arguments: args } = event.interruption;
        this.showCall(out, callId, toolName, args);
        out.push({ type: 'tool-approval-request', approvalId: callId, toolCallId: callId });
        break;
      }
    }
    return out;
  }

  /** The chunks that end the message: after the run's result, or after an error. */
  finish(outcome: { result: RunEnding } | { error: string }): UiMessageChunk[] {
    const out = this.begin();
    this.closeStep(out);
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

  private showCall(out: UiMessageChunk[], callId: string, name: string, args: unknown): void {
    if (this.shown.has(callId)) return;
    this.shown.add(callId);
    const input = typeof args === 'string' ? parsedArguments(args) : args;
    out.push({ type: 'tool-input-available', toolCallId: callId, toolName: name, input });
  }

  private outputOf(callId: string, output: string, isError: boolean): UiMessageChunk {
    if (this.decided.get(callId) === false)
      return { type: 'tool-output-denied', toolCallId: callId };
    return isError
      ? { type: 'tool-output-error', toolCallId: callId, errorText: output }
      : { type: 'tool-output-available', toolCallId: callId, output };
  }

  private openStep(out: UiMessageChunk[]): void {
    if (this.stepOpen) return;
    this.stepOpen = true;
    out.push({ type: 'start-step' });
  }

  private closeText(out: UiMessageChunk[]): void {
    if (this.textId === undefined) return;
    out.push({ type: 'text-end', id: this.textId });
    this.textId = undefined;
  }

  private closeStep(out: UiMessageChunk[]): void {
    this.closeText(out);
    if (!this.stepOpen) return;
    this.stepOpen = false;
    out.push({ type: 'finish-step' });
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
