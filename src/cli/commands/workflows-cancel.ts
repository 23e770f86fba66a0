import { json } from '../shared/cli-format.js';
import { POSTGRES_OPTIONS, withCommandStore } from '../shared/command-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { operator } from '../shared/operator.js';
import { queueForWorkflow } from '../shared/workflow-inbox.js';
import { checkRunning, loadWorkflow } from '../shared/workflow-target.js';

async function run(ctx: CommandContext): Promise<void> {
  const reason = stringFlag(ctx, 'reason');
  const by = operator();
  const id = ctx.args['workflowId']!;
  const queued = await withCommandStore(ctx, 'workflows cancel', async ({ store }) => {
    const target = await loadWorkflow(store, id, ctx.user);
    checkRunning(target, 'cancel');
    return queueForWorkflow(store, target, {
      cancel: { ...(reason === undefined ? {} : { reason }), ...(by === undefined ? {} : { by }) },
    });
  });
  if (ctx.json) {
    ctx.io.out(
      json({
        queued: true,
        workflowId: id,
        userId: ctx.user,
        cancel: true,
        messageId: queued.id,
        ...(reason === undefined ? {} : { reason }),
      }),
    );
    return;
  }
  ctx.io.out(
    `cancel of workflow ${id} queued in its inbox: the process that hosts it stops it (status failed, cancelled)\n`,
  );
}

export const workflowsCancel: Command = {
  name: 'workflows cancel',
  summary:
    'cancel a workflow instance from anywhere: queued in its inbox for the process that hosts it',
  args: ['workflowId'],
  options: {
    reason: { type: 'string', value: 'TEXT', description: 'why, kept on the instance' },
    ...POSTGRES_OPTIONS,
  },
  examples: [
    'agentstate workflows cancel order-7 --reason "customer left" --user alice',
    'AGENTSTATE_POSTGRES_URL=postgres://ops@db/app agentstate workflows cancel order-7 --user alice',
  ],
  run,
};
