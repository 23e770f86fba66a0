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
  | {
      type: 'approval_requested';
      step: number;
      callId: string;
      name: string;
      arguments: string;
      /** A sub-agent's call: the agent names from the session's agent down to the one asking. */
      agentPath?: string[] | undefined;
      /** A sub-agent's call: the run that waits on it (a decision names it with the call id). */
      subRunId?: string | undefined;
    }
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

/** Where a paused run's end sits in its approval step: after its requests, before its results. */
export const PAUSE_N = 1000;

/**
 * The events of a run's journal after `after` (all of them without it). A model call (at its
 * step `s`): its start `(s, 0)`, its text whole `(s, length)` (only the part after the cursor
 * when the cursor is inside it), its tool calls. The calls its approval check (step `a`) stopped
 * for `(a, j)`; a paused run's end would be `(a, PAUSE_N)`; the turn's tool results come after,
 * by call order (under `a`, else under `s` after the calls), whichever order they were
 * journaled in: a result waits for the earlier calls' results unless `final` (the run stopped).
 * Guardrail steps show nothing; sub-agent runs are journaled apart.
 */
export function journalEvents(
  runId: string,
  entries: readonly JournalEntry[],
  after: AttachCursor | undefined,
  final: boolean,
): AttachEvent[] {
  const from = after?.runId === runId ? after : undefined;
  const out: AttachEvent[] = [];
  const push = (step: number, n: number, body: AttachEventBody) => {
    if (from && !isBefore(from, { step, n })) return;
    out.push({ ...body, runId, id: attachEventId({ runId, step, n }) });
  };
  const sorted = [...entries].sort((a, b) => a.step - b.step);
  const results = new Map<string, ToolCallOutput>();
  for (const entry of sorted) {
    if (entry.kind === 'tool') {
      const output = entry.output as ToolCallOutput;
      results.set(`${entry.step}:${output.callId}`, output);
    }
  }
  for (const [index, entry] of sorted.entries()) {
    if (entry.kind !== 'model') continue;
    const step = entry.step;
    const output = entry.output as ModelStepOutput;
    const text = output.text ?? '';
    push(step, 0, { type: 'step_started', step });
    if (text && (!from || isBefore(from, { step, n: text.length }))) {
      const seen = from?.step === step ? Math.max(0, from.n) : 0;
      const id = attachEventId({ runId, step, n: text.length });
      out.push({ type: 'text', step, text: text.slice(seen), runId, id });
    }
    const calls = output.toolCalls;
    calls.forEach((c, i) => {
      const { callId, name, arguments: args } = c;
      push(step, text.length + 1 + i, { type: 'tool_call', step, callId, name, arguments: args });
    });
    // The rest of the turn: up to the next model call.
    const next = sorted.slice(index + 1).find((e) => e.kind === 'model')?.step ?? Infinity;
    const turn = sorted.filter((e) => e.step > step && e.step < next);
    const check = turn.find((e) => e.kind === 'approval');
    let base = { step, n: text.length + 1 + calls.length };
    if (check) {
      const asked = (check.output as ApprovalCheckOutput).decisions.filter((d) => d.needsApproval);
      asked.forEach((d, j) => {
        const call = calls.find((c) => c.callId === d.callId);
        const { name = '', arguments: args = '' } = call ?? {};
        const body = { type: 'approval_requested' as const, step: check.step, callId: d.callId };
        push(check.step, j, { ...body, name, arguments: args });
      });
      base = { step: check.step, n: PAUSE_N + 1 };
    }
    for (const [i, c] of calls.entries()) {
      const found = turn.find(
        (e) => e.kind === 'tool' && (e.output as ToolCallOutput).callId === c.callId,
      );
      const result = found && results.get(`${found.step}:${c.callId}`);
      if (!result) {
        if (final) continue;
        break; // a later call's result waits for this one's
      }
      push(base.step, base.n + i, {
        type: 'tool_result',
        step: found.step,
        callId: c.callId,
        output: result.result?.output ?? '',
        isError: result.isError,
      });
    }
  }
  return out;
}
