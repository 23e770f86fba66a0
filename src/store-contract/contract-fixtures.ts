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
