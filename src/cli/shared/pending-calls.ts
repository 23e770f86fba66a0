import { pendingApproval } from '../../machines/call-approvals.js';
import { agentPathOf } from '../../machines/agent-path.js';
import type { SessionRecord } from '../../persistence/session-store.js';
import { pausedRuns, runState, type RunNode } from '../../runs/run-tree.js';
import { storedRun } from '../../runs/stored-run.js';
import { localDate, oneLine, table, type Painter } from './cli-format.js';

/** A tool call waiting for a human's decision, somewhere in the session's run tree. */
export interface PendingCall {
  callId: string;
  tool: string;
  arguments: string;
  runId: string;
  /** Agent names from the session's agent down to the one that made the call. */
  agentPath: string[];
  /** Epoch ms after which it is rejected with reason `timeout`. */
  deadline?: number | undefined;
}

/** The calls a stored session's run (and its sub-agent runs) wait on, and the decided-but-held ones. */
export function pendingCalls(record: SessionRecord): { pending: PendingCall[]; held: boolean } {
  const root = storedRun<RunNode>(record.snapshot);
  if (!root || root.status !== 'active') return { pending: [], held: false };
  const waiting = pausedRuns(root).filter((r) => runState(r) === 'awaitingApproval');
  const pending = waiting.flatMap((r) =>
    (r.context?.calls ?? []).filter(pendingApproval).map((c) => ({
      callId: c.callId,
      tool: c.name,
      arguments: c.arguments,
      runId: r.context!.runId,
      agentPath: agentPathOf(r.context!),
      ...(c.deadline === undefined ? {} : { deadline: c.deadline }),
    })),
  );
  return { pending, held: waiting.some((r) => r.context?.held === true) };
}

/**
 * The table of calls waiting for a decision, as `sessions show` and `workflows show` print it;
 * `where` names the column that says where each call waits (its run, or its agent's session).
 */
export function pendingCallsTable<C extends PendingCall>(
  calls: readonly C[],
  where: { header: string; of: (call: C) => string },
  painter: Painter,
): string {
  return table(
    ['CALL', 'TOOL', 'ARGUMENTS', where.header, 'AGENT', 'DEADLINE'],
    calls.map((c) => [
      c.callId,
      c.tool,
      oneLine(c.arguments, 40),
      where.of(c),
      c.agentPath.join(' > '),
      localDate(c.deadline),
    ]),
    painter,
  );
}
