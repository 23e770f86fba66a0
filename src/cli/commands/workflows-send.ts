import { newId } from '../../core/new-id.js';
import { json } from '../shared/cli-format.js';
import { POSTGRES_OPTIONS, withCommandStore } from '../shared/command-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { parseWorkflowEvent } from '../shared/workflow-event.js';
import { queueForWorkflow } from '../shared/workflow-inbox.js';
import { checkRunning, loadWorkflow } from '../shared/workflow-target.js';

async function run(ctx: CommandContext): Promise<void> {
  // Checked before anything is opened: a bad event stores nothing.
  const event = parseWorkflowEvent(ctx.args['event']!, 'workflows send');
  const eventId = stringFlag(ctx, 'event-id') ?? newId();
  const id = ctx.args['workflowId']!;
  const queued = await withCommandStore(ctx, 'workflows send', async ({ store }) => {
    const target = await loadWorkflow(store, id, ctx.user);
    // Sent again with the id of one it applied: exactly once, so nothing more to queue.
    if (target.instance.events.includes(eventId)) return undefined;
    checkRunning(target, 'more events');
    return queueForWorkflow(store, target, { event, eventId });
  });
  if (!queued) {
    if (ctx.json) ctx.io.out(json({ queued: false, applied: true, workflowId: id, eventId }));
    else ctx.io.out(`event id ${eventId} was applied to workflow ${id} already: nothing queued\n`);
    return;
  }
  if (ctx.json) {
    ctx.io.out(
      json({
        queued: true,
        workflowId: id,
        userId: ctx.user,
        type: event.type,
        eventId,
        messageId: queued.id,
      }),
    );
    return;
  }
  ctx.io.out(
    `event ${event.type} (event id ${eventId}) queued in the inbox of workflow ${id}: the process that hosts it applies it, once\n`,
  );
}

export const workflowsSend: Command = {
  name: 'workflows send',
  summary:
    'send an event to a workflow instance: queued in its inbox, applied once by the process that hosts it',
  args: ['workflowId', 'event'],
  options: {
    'event-id': {
      type: 'string',
      value: 'ID',
      description:
        "the sender's id for the event: sent again with the same id, it is applied once (default: a new id)",
    },
    ...POSTGRES_OPTIONS,
  },
  examples: [
    `agentstate workflows send order-7 '{"type":"PAID","amount":40}' --user alice`,
    'agentstate workflows send order-7 SHIP --event-id ship-7 --user alice',
  ],
  details:
    'The event is a JSON object with a "type" (or a bare type). Nothing runs in the command line: the event waits in the instance\'s inbox until the process that hosts it (on PostgreSQL, the one holding its lease; in a folder, the app when it opens the folder) takes it, exactly once and in the order queued.',
  run,
};
