import type { SessionInfo } from '../persistence/session-store.js';
import type { RunStatusView } from '../runs/run-status.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import type { ListQuery, RunFilter } from './list-query.js';
import { listPosition } from '../persistence/entries/list-order.js';

/** The most sessions one list request reads from the store before it answers (a partial page). */
export const MAX_SCANNED = 2000;

/** How many sessions the list reads from the store at a time while it fills a page. */
const CHUNK = 200;

/** A session as the list shows it: its record, what its run does, its agent and usage so far. */
export interface ListedSession extends SessionInfo {
  /** The agent of its run in progress, else of its last run. */
  agent: string | undefined;
  runStatus: RunStatusView | undefined;
  usageSoFar: SessionInfo['usage'];
  pendingApprovals: number;
}

/**
 * A page of one user's sessions under the list's filters, in the order `sort` names across
 * pages: the store's list order (`list({ order })`, from its index), the sessions whose calls
 * wait for a decision first. It walks that order (`CHUNK` at a time, from `cursor`, a position
 * of the order) and reads each session's run status only for the sessions it walks, never the
 * whole partition: it stops once `limit` sessions match, or once it has read `MAX_SCANNED`
 * sessions (then `nextCursor` goes on from there and `partial` says the page may be short).
 */
export async function listSessions(
  runtime: SessionRuntime,
  userId: string | undefined,
  query: ListQuery,
): Promise<{
  sessions: ListedSession[];
  nextCursor: string | undefined;
  scanned: number;
  partial: boolean;
}> {
  const sessions: ListedSession[] = [];
  let cursor = query.cursor;
  let scanned = 0;
  let nextCursor: string | undefined;
  let partial = false;
  for (;;) {
    const page = await runtime.listSessions({
      userId,
      status: query.status,
      cursor,
      order: query.sort,
      limit: Math.min(CHUNK, MAX_SCANNED - scanned),
    });
    let full = false;
    for (const info of page.sessions) {
      scanned++;
      // (a store of the contract lists sessions only; one written before `kind` lists instances too)
      if (info.workflow !== undefined) continue;
      const row = await listed(runtime, info);
      if (!matches(row, query)) continue;
      sessions.push(row);
      if (sessions.length === query.limit) {
        full = true;
        nextCursor = listPosition(query.sort, info);
        break;
      }
    }
    if (full) break;
    if (page.nextCursor === undefined) break;
    cursor = page.nextCursor;
    if (scanned >= MAX_SCANNED) {
      nextCursor = cursor;
      partial = true;
      break;
    }
  }
  return { sessions, nextCursor, scanned, partial };
}

async function listed(runtime: SessionRuntime, info: SessionInfo): Promise<ListedSession> {
  if (info.status === 'deleted') {
    return {
      ...info,
      agent: undefined,
      runStatus: undefined,
      usageSoFar: info.usage,
      pendingApprovals: 0,
    };
  }
  const view = await runtime.getSession({ sessionId: info.sessionId, userId: info.userId });
  return {
    ...info,
    agent: view.run?.context.agentName ?? view.lastRun?.agentName,
    runStatus: view.runStatus,
    usageSoFar: view.usageSoFar,
    pendingApprovals: view.runStatus?.pendingApprovals ?? 0,
  };
}

/** The run filter's name for what a run does (`waiting`: a call waits for a decision). */
function runFilterOf(row: ListedSession): RunFilter {
  const status = row.runStatus?.status;
  if (status === undefined) return 'none';
  return status === 'awaitingApproval' ? 'waiting' : status;
}

function matches(row: ListedSession, query: ListQuery): boolean {
  if (query.run !== undefined && runFilterOf(row) !== query.run) return false;
  if (query.agent !== undefined && row.agent !== query.agent) return false;
  if (query.text !== undefined) {
    const error = row.runStatus?.error;
    const haystack = [row.sessionId, row.parentId, row.agent, error?.code, error?.message]
      .filter((s) => s !== undefined)
      .join('\n')
      .toLowerCase();
    if (!haystack.includes(query.text)) return false;
  }
  return true;
}
