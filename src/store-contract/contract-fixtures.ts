import type { Item } from '../items/item.js';
import {
  emptyTotals,
  type JournalEntry,
  type SessionCommit,
  type SessionRecord,
  type UsageTotals,
} from '../persistence/session-store.js';

/** Records, items and commits the store contract suite writes (test helpers use them too). */

export function newSession(
  sessionId: string,
  userId?: string,
  status: SessionRecord['status'] = 'active',
): Omit<SessionRecord, 'version'> {
  return {
    sessionId,
    userId,
    status,
    createdAt: 1_000,
    updatedAt: 1_000,
    parentId: undefined,
    historyLength: 0,
    usage: emptyTotals(),
    machineVersion: 'machines@1',
    snapshot: { value: 'idle', context: { turn: 0, cursor: 0 } },
  };
}

export const msg = (content: string): Item => ({ type: 'message', role: 'user', content });
export const reply = (content: string): Item => ({
  type: 'message',
  role: 'assistant',
  content,
});
/** A journaled tool call's result at `step` (an output of the shape every read checks). */
export const entry = (runId: string, step: number): JournalEntry => ({
  runId,
  step,
  kind: 'tool',
  output: {
    callId: `call_${step}`,
    isError: false,
    result: { type: 'tool_result', callId: `call_${step}`, name: 'work', output: `step ${step}` },
  },
  at: 2_000 + step,
});
export const usage = (turns: number, tokens: number, costUsd: number): UsageTotals => ({
  turns,
  inputTokens: tokens,
  outputTokens: tokens * 2,
  costUsd,
});

/** A commit appending `items` (and `journal`) on top of `record` as loaded. */
export function commitOn(
  record: SessionRecord,
  items: Item[],
  journal: JournalEntry[] = [],
  extra: Partial<SessionCommit> & { status?: SessionRecord['status'] } = {},
): SessionCommit {
  const { status, ...rest } = extra;
  return {
    record: {
      ...record,
      status: status ?? record.status,
      historyLength: record.historyLength + items.length,
      updatedAt: record.updatedAt + 1,
      snapshot: {
        value: 'running',
        context: { turn: record.version, cursor: record.historyLength },
      },
    },
    items,
    journal,
    ...rest,
  };
}

/**
 * A hosted app machine's instance (`workflows()`): a record with `workflow` set, under the id
 * and machine version the host gives it, its snapshot the host's envelope.
 */
export function newWorkflow(
  instanceId: string,
  userId?: string,
  status: SessionRecord['status'] = 'active',
): Omit<SessionRecord, 'version'> {
  return {
    ...newSession(`workflow:${instanceId}`, userId, status),
    workflow: 'orders',
    machineVersion: 'workflow/orders@1',
    snapshot: {
      format: 1,
      machine: { status: 'active', value: 'validating', context: { orderId: instanceId } },
      host: { runId: 'wf-run', seq: 0, timers: [], events: [] },
    },
  };
}

/** A workflow's journaled `event` entry at `step`: the event it took and the state it reached. */
export const eventEntry = (runId: string, step: number, type = 'PAY'): JournalEntry => ({
  runId,
  step,
  kind: 'event',
  output: {
    source: 'send',
    type,
    eventId: `e${step}`,
    value: { paying: 'card' },
    status: 'active',
  },
  at: 3_000 + step,
});

/** A workflow's journaled `step` entry at `step`: a durable step's outcome. */
export const stepEntry = (runId: string, step: number): JournalEntry => ({
  runId,
  step,
  kind: 'step',
  output: { name: 'validate', actorId: 'validate', outcome: 'done', output: { ok: true } },
  at: 3_000 + step,
  startedAt: 2_900 + step,
});
