import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { WORKFLOW_COMMAND_OPTIONS, withWorkflow } from '../shared/workflow-command.js';
import { queueForWorkflow } from '../shared/workflow-inbox.js';
import { printOutcome } from '../shared/workflow-outcome.js';
import { checkRunning } from '../shared/workflow-target.js';

async function run(ctx: CommandContext): Promise<void> {
  const reason = stringFlag(ctx, 'reason');
  const id = ctx.args['workflowId']!;
  const outcome = await withWorkflow(
    ctx,
    'workflows cancel',
    id,
    async ({ store, target, host }) => {
      checkRunning(target);
      if (host) return { applied: await host.cancel(id, { userId: ctx.user, reason }) };
      const queued = await queueForWorkflow(store, target, { kind: 'cancel', reason });
      return { queued: queued.id };
    },
  );
  printOutcome(ctx, id, 'cancel', outcome, {
    cancel: true,
    ...(reason === undefined ? {} : { reason }),
  });
}

export const workflowsCancel: Command = {
  name: 'workflows cancel',
  summary:
    'cancel a workflow instance from anywhere (it ends failed, marked cancelled; its agents runs are cancelled)',
  args: ['workflowId'],
  options: {
    reason: { type: 'string', value: 'TEXT', description: 'why, kept on the instance' },
    ...WORKFLOW_COMMAND_OPTIONS,
  },
  examples: [
    'agentstate workflows cancel order-7 --reason "customer left" --user alice',
    'AGENTSTATE_POSTGRES_URL=postgres://ops@db/app agentstate workflows cancel order-7 --user alice',
  ],
  run,
};
