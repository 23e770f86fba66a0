import type { RunStreamEvent } from '../agent/run-stream.js';
import type { Interruption } from '../runs/run-state.js';
import type { AguiEvent, AguiInterrupt, AguiMessage } from './agui-event.js';
import type { HttpError } from './http-error.js';
import { RunParts, type RunPart } from './run-parts.js';
import type { RunEventTranslator } from './sse-run-stream.js';
import type { RunEnding } from './ui-chunk-translator.js';

/**
 * How a run ended or paused, as its last AG-UI event shows it: a `RunResult`, or what an
 * attached reader knows of the run (its output unknown).
 */
export interface AguiRunEnding extends RunEnding {
  /** The run's id. */
  id: string;
  output?: unknown;
  /** The calls waiting for approval, when it paused for them. */
  interruptions: readonly Interruption[];
}

/** The answer an approval interrupt asks for: `{ approved, message? }`. */
const APPROVAL_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    message: { type: 'string', description: 'Why the call is rejected: what the model reads' },
  },
  required: ['approved'],
};

/**
 * Turns one run's stream events into AG-UI events: `RUN_STARTED` (thread id the session id,
 * run id the agentstate run id), then the run's parts (`RunParts`): a step per model call
 * (`STEP_STARTED` / `STEP_FINISHED`), its text as one assistant text message, each tool call as
 * `TOOL_CALL_START` / `ARGS` / `END` under the step's message then `TOOL_CALL_RESULT`; and last
 * `RUN_FINISHED` with its outcome (`success` with the output as `result`, `interrupt` with one
 * interrupt per call waiting for approval, `cancelled`) or `RUN_ERROR`. Message ids start with
 * `messagePrefix` (the request's own run id), so they differ from run to run of a thread.
 * `decided` are the calls this request decides: the client has their calls, and a rejected
 * one's result is marked `denied`. A reconnect (`POST /agui/connect`) opens with `start` (the
 * thread's messages) and ends with `end` (a run ending read from the store, not a `RunResult`).
 */
export class AguiEventTranslator implements RunEventTranslator<AguiEvent> {
  private runId: string | undefined;
  private message: string | undefined;
  private readonly parts: RunParts;

  constructor(
    private readonly threadId: string,
    private readonly messagePrefix: string,
    decided: ReadonlyMap<string, boolean> = new Map(),
  ) {
    this.parts = new RunParts(decided);
  }

  /** The events of one event (`RUN_STARTED` before the first, `RUN_FINISHED` after the last). */
  translate(event: RunStreamEvent<unknown>): AguiEvent[] {
    if (event.type === 'run_finished') return this.end(event.result);
    const out = this.begin(event.runId);
    for (const part of this.parts.read(event)) out.push(...this.eventsOf(part));
    return out;
  }

  /**
   * The events that open a reconnect's stream: `RUN_STARTED` of `runId`, then a
   * `MESSAGES_SNAPSHOT` of the thread's messages before what the run's events will add.
   */
  start(runId: string, messages: AguiMessage[]): AguiEvent[] {
    return [...this.begin(runId), { type: 'MESSAGES_SNAPSHOT', messages }];
  }

  /** The events that end the run: what is open closes, then `RUN_FINISHED` or `RUN_ERROR`. */
  end(ending: AguiRunEnding): AguiEvent[] {
    const out = [...this.begin(ending.id), ...this.close()];
    if (!ending.interrupted && ending.error) {
      out.push(...this.ended(ending.error));
    } else {
      out.push(this.finished(ending));
    }
    return out;
  }

  /** The events that end the stream after it failed: a cancel is `cancelled`, else `RUN_ERROR`. */
  failed(error: HttpError): AguiEvent[] {
    return [...this.close(), ...this.ended(error)];
  }

  /** A run that ended without an answer: cancelled, else `RUN_ERROR` with its code. */
  private ended(error: { code: string; message: string }): AguiEvent[] {
    if (error.code === 'RUN_CANCELLED' && this.runId !== undefined) {
      return [{ ...this.ids(this.runId), type: 'RUN_FINISHED', outcome: { type: 'cancelled' } }];
    }
    return [{ type: 'RUN_ERROR', code: error.code, message: error.message }];
  }

  private begin(runId: string): AguiEvent[] {
    if (this.runId !== undefined) return [];
    this.runId = runId;
    return [{ ...this.ids(runId), type: 'RUN_STARTED', protocolVersion: '1.0' }];
  }

  private ids(runId: string): { threadId: string; runId: string } {
    return { threadId: this.threadId, runId };
  }

  private close(): AguiEvent[] {
    return this.parts.close().flatMap((part) => this.eventsOf(part));
  }

  /** How the run ended or paused: `RUN_FINISHED` with its outcome, or `RUN_ERROR`. */
  private finished(result: AguiRunEnding): AguiEvent {
    const ids = this.ids(result.id);
    if (!result.interrupted) {
      return {
        ...ids,
        type: 'RUN_FINISHED',
        ...(result.output === undefined ? {} : { result: result.output }),
        outcome: { type: 'success' },
      };
    }
    if (result.interruptionReason === 'approval' && result.interruptions.length > 0) {
      const interrupts = result.interruptions.map(interruptOf);
      return { ...ids, type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts } };
    }
    const reason = result.interruptionReason ?? 'unknown';
    return {
      type: 'RUN_ERROR',
      code: result.error?.code ?? 'RUN_INTERRUPTED',
      message: result.error?.message ?? `The run paused (${reason}); it can be resumed`,
    };
  }

  /** The AG-UI events of one run part. */
  private eventsOf(part: RunPart): AguiEvent[] {
    switch (part.type) {
      case 'step-start':
        return [{ type: 'STEP_STARTED', stepName: `step-${part.step}` }];
      case 'step-end':
        return [{ type: 'STEP_FINISHED', stepName: `step-${part.step}` }];
      case 'text-start':
        this.message = this.messageId(part.step);
        return [{ type: 'TEXT_MESSAGE_START', messageId: this.message, role: 'assistant' }];
      case 'text-delta':
        return [{ type: 'TEXT_MESSAGE_CONTENT', messageId: this.message!, delta: part.delta }];
      case 'text-end':
        return [{ type: 'TEXT_MESSAGE_END', messageId: this.message! }];
      case 'tool-call': {
        const { callId: toolCallId, name, arguments: args } = part;
        const delta = typeof args === 'string' ? args : JSON.stringify(args ?? {});
        return [
          {
            type: 'TOOL_CALL_START',
            toolCallId,
            toolCallName: name,
            parentMessageId: this.messageId(part.step),
          },
          { type: 'TOOL_CALL_ARGS', toolCallId, delta },
          { type: 'TOOL_CALL_END', toolCallId },
        ];
      }
      case 'tool-result': {
        const { callId: toolCallId, output, isError, denied } = part;
        const flags = denied || isError ? { isError: true as const } : undefined;
        return [
          {
            type: 'TOOL_CALL_RESULT',
            messageId: `${this.messagePrefix}-result-${toolCallId}`,
            toolCallId,
            content: output,
            role: 'tool',
            ...(flags ? { metadata: denied ? { ...flags, denied: true as const } : flags } : {}),
          },
        ];
      }
      case 'approval-request':
        // Asked in RUN_FINISHED's interrupt outcome, once the run has paused.
        return [];
    }
  }

  /** The assistant message of a step: its text and its tool calls. */
  private messageId(step: number): string {
    return `${this.messagePrefix}-${step}`;
  }
}

/** A call waiting for approval as an AG-UI interrupt (`reason: 'tool_call'`). */
function interruptOf(interruption: Interruption): AguiInterrupt {
  const { callId, toolName, agent, deadline } = interruption;
  return {
    id: callId,
    reason: 'tool_call',
    message: `Approve the call of ${toolName}?`,
    toolCallId: callId,
    responseSchema: APPROVAL_SCHEMA,
    ...(deadline === undefined ? {} : { expiresAt: new Date(deadline).toISOString() }),
    metadata: { toolName, agent },
  };
}
