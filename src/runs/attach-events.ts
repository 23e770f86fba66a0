import type { SerializedError } from '../errors/agentstate-error.js';
import type {
  ApprovalCheckOutput,
  ModelStepOutput,
  ToolCallOutput,
} from '../machines/step-actor-io.js';
import type { InterruptionReason } from '../machines/run-types.js';
import type { JournalEntry } from '../persistence/session-store.js';
import type { RunStatus } from './run-status.js';

/** What an `AttachEvent` says, without its id. */
export type AttachEventBody =
  | { type: 'step_started'; step: number }
  | { type: 'text'; step: number; text: string }
  | { type: 'tool_call'; step: number; callId: string; name: string; arguments: string }
  | { type: 'approval_requested'; step: number; callId: string; name: string; arguments: string }
  | { type: 'tool_result'; step: number; callId: string; output: string; isError: boolean }
  | {
      type: 'run_ended';
      /** `running` never: `awaitingApproval` / `interrupted` a pause, else how the run ended. */
      status: RunStatus;
      interruption?: InterruptionReason | undefined;
      error?: SerializedError | undefined;
    };

/**
 * One event of `agent.attach`: the session's run as steps (a model call's start, its text, its
 * tool calls; approvals asked; tool results), then how it ended or paused. `id` is
 * `${runId}:${step}:${n}`, increasing through the run: pass the last one seen as `after` to
 * go on exactly after it.
 */
export type AttachEvent = AttachEventBody & { id: string; runId: string };

/**
 * A position in a run's events: its journal step, and within it `n` (0 the model call's start,
 * `1..length` the characters of its text, then its tool calls; `Infinity` the run's end).
 */
export interface AttachCursor {
  runId: string;
  step: number;
  n: number;
}

/** The id of the event at `cursor`. */
export function attachEventId(cursor: AttachCursor): string {
  const n = cursor.n === Infinity ? 'end' : String(cursor.n);
  return `${cursor.runId}:${cursor.step}:${n}`;
}

/** The cursor of an event id; `undefined` for a string that is not one. */
export function parseAttachEventId(id: string): AttachCursor | undefined {
  const match = /^(.+):(\d+):(\d+|end)$/.exec(id);
  if (!match) return undefined;
  const n = match[3] === 'end' ? Infinity : Number(match[3]);
  return { runId: match[1]!, step: Number(match[2]), n };
}

/** Whether position `a` comes before `b` in one run. */
export function isBefore(a: AttachCursor, b: Pick<AttachCursor, 'step' | 'n'>): boolean {
  return a.step < b.step || (a.step === b.step && a.n < b.n);
}

/**
 * The events of a run's journaled steps after `after` (all of them without it): a model
 * step's text whole (only the part after the cursor when the cursor is inside it), its tool
 * calls, the calls its approval check stopped for, each tool result. Guardrail steps show
 * nothing. Sub-agent runs are journaled apart: they are not in it.
 */
export function journalEvents(
  runId: string,
  entries: readonly JournalEntry[],
  after: AttachCursor | undefined,
): AttachEvent[] {
  const from = after?.runId === runId ? after : undefined;
  const out: AttachEvent[] = [];
  const calls = new Map<string, { name: string; arguments: string }>();
  const push = (n: number, body: AttachEventBody & { step: number }) => {
    if (from && !isBefore(from, { step: body.step, n })) return;
    out.push({ ...body, runId, id: attachEventId({ runId, step: body.step, n }) });
  };
  for (const entry of [...entries].sort((a, b) => a.step - b.step)) {
    const { step } = entry;
    if (entry.kind === 'model') {
      const output = entry.output as ModelStepOutput;
      const text = output.text ?? '';
      push(0, { type: 'step_started', step });
      if (text && (!from || isBefore(from, { step, n: text.length }))) {
        const seen = from?.step === step ? Math.max(0, from.n) : 0;
        out.push({
          type: 'text',
          step,
          text: text.slice(seen),
          runId,
          id: attachEventId({ runId, step, n: text.length }),
        });
      }
      output.toolCalls.forEach((c, i) => {
        calls.set(c.callId, { name: c.name, arguments: c.arguments });
        push(text.length + 1 + i, {
          type: 'tool_call',
          step,
          callId: c.callId,
          name: c.name,
          arguments: c.arguments,
        });
      });
    } else if (entry.kind === 'approval') {
      const output = entry.output as ApprovalCheckOutput;
      output.decisions
        .filter((d) => d.needsApproval)
        .forEach((d, i) => {
          const call = calls.get(d.callId) ?? { name: '', arguments: '' };
          push(i, { type: 'approval_requested', step, callId: d.callId, ...call });
        });
    } else if (entry.kind === 'tool') {
      const output = entry.output as ToolCallOutput;
      push(0, {
        type: 'tool_result',
        step,
        callId: output.callId,
        output: output.result?.output ?? '',
        isError: output.isError,
      });
    }
  }
  return out;
}
