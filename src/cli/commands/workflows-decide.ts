import { AmbiguousCallError } from '../../errors/ambiguous-call-error.js';
import { UnknownCallError } from '../../errors/run-errors.js';
import type { SessionKey } from '../../persistence/session-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { linkedSessions, type LinkedSession } from '../shared/linked-sessions.js';
import { WORKFLOW_COMMAND_OPTIONS, withWorkflow } from '../shared/workflow-command.js';
import { queueForWorkflow } from '../shared/workflow-inbox.js';
import { printOutcome } from '../shared/workflow-outcome.js';
import { checkRunning } from '../shared/workflow-target.js';

/**
 * The agent session of the instance whose run waits on `callId`: none is `UnknownCallError`,
 * several (two agents with calls of one id) `AmbiguousCallError`; nothing is queued then.
 */
function holderOf(
  linked: readonly LinkedSession[],
  workflow: SessionKey,
  callId: string,
): LinkedSession {
  const holders = linked.flatMap((l) =>
    l.pending.filter((c) => c.callId === callId).map((call) => ({ session: l, call })),
  );
  if (holders.length > 1) {
    throw new AmbiguousCallError(
      callId,
      holders.map(({ call }) => ({ runId: call.runId, agentPath: call.agentPath })),
      { sessionId: workflow.sessionId },
    );
  }
  if (!holders[0]) throw new UnknownCallError(callId, { sessionId: workflow.sessionId });
  return holders[0].session;
}

/** `workflows approve` and `workflows reject`: a call an agent the workflow invoked waits on. */
function decide(approve: boolean, name: string) {
  return async (ctx: CommandContext): Promise<void> => {
    const message = stringFlag(ctx, 'message');
    const always = ctx.flags['always'] === true;
    const id = ctx.args['workflowId']!;
    const callId = ctx.args['callId']!;
    let holder: LinkedSession | undefined;
    const outcome = await withWorkflow(ctx, name, id, async ({ store, target, host }) => {
      checkRunning(target);
      holder = holderOf(await linkedSessions(store, target), target.key, callId);
      const userId = ctx.user;
      if (host) {
        return {
          applied: approve
            ? await host.approve(id, callId, { userId, always })
            : await host.reject(id, callId, { userId, message, always }),
        };
      }
      const queued = await queueForWorkflow(store, target, {
        kind: 'decision',
        callId,
        approve,
        ...(always ? { always } : {}),
        ...(message === undefined ? {} : { message }),
      });
      return { queued: queued.id };
    });
    const verb = approve ? 'approval' : 'rejection';
    printOutcome(
      ctx,
      id,
      `${verb} of call ${callId} (agent ${holder!.agent}, session ${holder!.key.sessionId})`,
      outcome,
      {
        callId,
        decision: approve ? 'approved' : 'rejected',
        sessionId: holder!.key.sessionId,
        actorId: holder!.actorId,
        ...(always ? { always } : {}),
      },
    );
  };
}

const always = {
  type: 'boolean' as const,
  description: "the same decision for every later call of this tool in the agent's session",
};

export const workflowsApprove: Command = {
  name: 'workflows approve',
  summary: 'approve a tool call an agent the workflow invoked waits on, by workflow id',
  args: ['workflowId', 'callId'],
  options: { always, ...WORKFLOW_COMMAND_OPTIONS },
  examples: ['agentstate workflows approve order-7 call_2_0 --user alice'],
  run: decide(true, 'workflows approve'),
};

export const workflowsReject: Command = {
  name: 'workflows reject',
  summary: 'reject a tool call an agent the workflow invoked waits on; its model reads --message',
  args: ['workflowId', 'callId'],
  options: {
    message: { type: 'string', value: 'M', description: 'what the model is told' },
    always,
    ...WORKFLOW_COMMAND_OPTIONS,
  },
  examples: [
    'agentstate workflows reject order-7 call_2_0 --message "refund too large" --user alice',
  ],
  run: decide(false, 'workflows reject'),
};
