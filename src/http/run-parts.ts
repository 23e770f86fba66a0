import type { RunStreamEvent } from '../agent/run-stream.js';

/**
 * A part of a run as a chat UI shows it, whatever the wire protocol: steps (one per model call,
 * with its tool calls), texts inside a step, tool calls with their results, and calls waiting
 * for an approval. Steps and texts are numbered from 1 in the order they open.
 */
export type RunPart =
  | { type: 'step-start'; step: number }
  | { type: 'step-end'; step: number }
  | { type: 'text-start'; text: number; step: number }
  | { type: 'text-delta'; text: number; delta: string }
  | { type: 'text-end'; text: number }
  | { type: 'tool-call'; callId: string; name: string; arguments: unknown; step: number }
  | { type: 'tool-result'; callId: string; output: string; isError: boolean; denied: boolean }
  | { type: 'approval-request'; callId: string; name: string; arguments: unknown };

/**
 * Reads one run's stream events as run parts, the part both wire protocols share (the AI SDK UI
 * message stream and AG-UI): a step opens when the run enters `modelCall` (or at its first
 * part), a text closes before a tool call, each call is shown once, a call waiting for approval
 * is shown then asked. Sub-agent runs show only their approvals. `decided` are the calls the
 * request decides: the client shows them already, and a rejected one's result is `denied`.
 */
export class RunParts {
  private step = 0;
  private stepOpen = false;
  private text: number | undefined;
  private texts = 0;
  private readonly shown: Set<string>;

  constructor(private readonly decided: ReadonlyMap<string, boolean> = new Map()) {
    this.shown = new Set(decided.keys());
  }

  /** The parts of one event (none for `run_finished`: `close` ends the parts). */
  read(event: RunStreamEvent<unknown>): RunPart[] {
    const out: RunPart[] = [];
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
        if (this.text === undefined) {
          this.text = ++this.texts;
          out.push({ type: 'text-start', text: this.text, step: this.step });
        }
        out.push({ type: 'text-delta', text: this.text, delta: event.delta });
        break;
      case 'tool_call_started':
        this.openStep(out);
        this.closeText(out);
        this.showCall(out, event.callId, event.name, event.arguments);
        break;
      case 'tool_call_finished': {
        this.openStep(out);
        const { callId, output, isError } = event;
        out.push({
          type: 'tool-result',
          callId,
          output,
          isError,
          denied: this.decided.get(callId) === false,
        });
        break;
      }
      case 'approval_requested': {
        this.openStep(out);
        this.closeText(out);
        const { callId, toolName, arguments: args } = event.interruption;
        this.showCall(out, callId, toolName, args);
        out.push({ type: 'approval-request', callId, name: toolName, arguments: args });
        break;
      }
    }
    return out;
  }

  /** The parts that close what is open (the text, the step), at the run's end or failure. */
  close(): RunPart[] {
    const out: RunPart[] = [];
    this.closeStep(out);
    return out;
  }

  private showCall(out: RunPart[], callId: string, name: string, args: unknown): void {
    if (this.shown.has(callId)) return;
    this.shown.add(callId);
    out.push({ type: 'tool-call', callId, name, arguments: args, step: this.step });
  }

  private openStep(out: RunPart[]): void {
    if (this.stepOpen) return;
    this.stepOpen = true;
    out.push({ type: 'step-start', step: ++this.step });
  }

  private closeText(out: RunPart[]): void {
    if (this.text === undefined) return;
    out.push({ type: 'text-end', text: this.text });
    this.text = undefined;
  }

  private closeStep(out: RunPart[]): void {
    this.closeText(out);
    if (!this.stepOpen) return;
    this.stepOpen = false;
    out.push({ type: 'step-end', step: this.step });
  }
}
