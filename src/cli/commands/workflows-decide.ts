import { recordDecisions } from '../../actions/record-decisions.js';
import { withRunId } from '../../actions/decision-checks.js';
import { submitStoredDecisions } from '../../approvals/decision-submission.js';
import { AmbiguousCallError } from '../../errors/ambiguous-call-error.js';
import { UnknownCallError } from '../../errors/run-errors.js';
import { hasDecisionInbox } from '../../persistence/store-supports.js';
import type { SessionKey } from '../../persistence/session-store.js';
import type { ApprovalDecision } from '../../runs/run-state.js';
import { json } from '../shared/cli-format.js';
import { POSTGRES_OPTIONS, withCommandStore, type CommandStore } from '../shared/command-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { linkedSessions, type LinkedSession } from '../shared/linked-sessions.js';
import { operator } from '../shared/operator.js';
import { loadWorkflow } from '../shared/workflow-target.js';

/** The linked session whose run waits on `callId` (in run `runId`, when given). */
function holderOf(
  linked: readonly LinkedSession[],
  workflow: SessionKey,
  callId: string,
  runId: string | undefined,
): LinkedSession {
  const fits = (l: LinkedSession) =>
    l.pending.filter((c) => c.callId === callId && (runId === undefined || c.runId === runId));
  const holders = linked.filter((l) => fits(l).length > 0);
  if (holders.length > 1 || (holders.length === 1 && fits(holders[0]!).length > 1)) {
    throw new AmbiguousCallError(
      callId,
      holders.flatMap((l) => fits(l).map((c) => ({ runId: c.runId, agentPath: c.agentPath }))),
    );
  }
  if (holders[0]) return holders[0];
  // Decided already and held for the host: the session's own check says what was decided.
  const held = linked.filter((l) => l.held);
  if (held.length === 1) return held[0]!;
  throw new UnknownCallError(callId, { sessionId: workflow.sessionId });
}

/**
 * Decides the call in the session `holder`: on a store shared by processes (PostgreSQL) through
 * its decision inbox, which the process hosting the workflow applies; in a folder, recorded in
 * the session (held) for that process to run when it hosts the workflow again.
 */
async function decideIn(
  opened: CommandStore,
  holder: LinkedSession,
  decision: ApprovalDecision,
): Promise<'submitted' | 'recorded'> {
  const { store, runtime } = opened;
  if (hasDecisionInbox(store)) {
    const record = await store.load(holder.key);
    await submitStoredDecisions(
      store,
      holder.key,
      record,
      (root) => [withRunId(root, decision)],
      Date.now(),
    );
    return 'submitted';
  }
  await runtime.execute(holder.key, recordDecisions([decision], { by: operator(), via: 'cli' }));
  return 'recorded';
}

/** `workflows approve` and `workflows reject`: a call of an agent the workflow invoked. */
function decide(approve: boolean, name: string) {
  return async (ctx: CommandContext): Promise<void> => {
    const message = stringFlag(ctx, 'message');
    const runId = stringFlag(ctx, 'run');
    const id = ctx.args['workflowId']!;
    const callId = ctx.args['callId']!;
    const decision: ApprovalDecision = {
      callId,
      approve,
      ...(runId === undefined ? {} : { runId }),
      ...(message === undefined ? {} : { message }),
    };
    const { holder, how } = await withCommandStore(ctx, name, async (opened) => {
      const target = await loadWorkflow(opened.store, id, ctx.user);
      const holder = holderOf(
        await linkedSessions(opened.store, target),
        target.key,
        callId,
        runId,
      );
      return { holder, how: await decideIn(opened, holder, decision) };
    });
    const verb = approve ? 'approved' : 'rejected';
    if (ctx.json) {
      ctx.io.out(
        json({
          workflowId: id,
          userId: ctx.user,
          sessionId: holder.key.sessionId,
          actorId: holder.actorId,
          callId,
          ...(runId === undefined ? {} : { runId }),
          decision: verb,
          [how]: true,
        }),
      );
      return;
    }
    ctx.io.out(
      `${verb} call ${callId} of workflow ${id} (agent session ${holder.key.sessionId}, invoked as ${holder.actorId}): ${
        how === 'submitted'
          ? 'submitted to the decision inbox; the process that hosts the workflow runs it on'
          : 'recorded; the app runs it on when it hosts the workflow again'
      }\n`,
    );
  };
}

const run = {
  type: 'string' as const,
  value: 'R',
  description:
    'the run the call waits in (workflows show lists it), when two of its agents wait on calls of the same id',
};

export const workflowsApprove: Command = {
  name: 'workflows approve',
  summary: 'approve a tool call an agent the workflow invoked waits on, by workflow id',
  args: ['workflowId', 'callId'],
  options: { run, ...POSTGRES_OPTIONS },
  examples: ['agentstate workflows approve order-7 call_2_0 --user alice'],
  run: decide(true, 'workflows approve'),
};

export const workflowsReject: Command = {
  name: 'workflows reject',
  summary: 'reject a tool call an agent the workflow invoked waits on; its model reads --message',
  args: ['workflowId', 'callId'],
  options: {
    message: { type: 'string', value: 'M', description: 'what the model is told' },
    run,
    ...POSTGRES_OPTIONS,
  },
  examples: [
    'agentstate workflows reject order-7 call_2_0 --message "refund too large" --user alice',
  ],
  run: decide(false, 'workflows reject'),
};
