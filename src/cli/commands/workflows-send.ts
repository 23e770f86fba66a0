import { newId } from '../../core/new-id.js';
import { json } from '../shared/cli-format.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { WORKFLOW_COMMAND_OPTIONS, withWorkflow } from '../shared/workflow-command.js';
import { parseWorkflowEvent } from '../shared/workflow-event.js';
import { queueForWorkflow } from '../shared/workflow-inbox.js';
import { printOutcome } from '../shared/workflow-outcome.js';
import { checkRunning } from '../shared/workflow-target.js';

async function run(ctx: CommandContext): Promise<void> {
  const id = ctx.args['workflowId']!;
  // Checked before anything is opened: a bad event stores nothing.
  const { event } = parseWorkflowEvent(id, ctx.args['event']!);
  const eventId = stringFlag(ctx, 'event-id') ?? newId();
  const outcome = await withWorkflow(ctx, 'workflows send', id, async ({ store, target, host }) => {
    // Sent again with the id of one it applied: exactly once, so nothing more to do.
    if (target.host.events.includes(eventId)) return undefined;
    checkRunning(target, event.type);
    if (host) return { applied: await host.send(id, event, { userId: ctx.user, eventId }) };
    const queued = await queueForWorkflow(store, target, { kind: 'event', event, eventId });
    return { queued: queued.id };
  });
  if (!outcome) {
    if (ctx.json) ctx.io.out(json({ workflowId: id, eventId, applied: true, before: true }));
    else ctx.io.out(`event id ${eventId} was applied to workflow ${id} already: nothing to do\n`);
    return;
  }
  printOutcome(ctx, id, `event ${event.type} (event id ${eventId})`, outcome, {
    type: event.type,
    eventId,
  });
}

export const workflowsSend: Command = {
  name: 'workflows send',
  summary:
    'send an event to a workflow instance: queued in its inbox for the process that hosts it, or applied at once with --module',
  args: ['workflowId', 'event'],
  options: {
    'event-id': {
      type: 'string',
      value: 'ID',
      description:
        "the sender's id for the event: sent again with the same id, it is applied once (default: a new id)",
    },
    ...WORKFLOW_COMMAND_OPTIONS,
  },
  examples: [
    `agentstate workflows send order-7 '{"type":"PAID","amount":40}' --user alice`,
    'agentstate workflows send order-7 SHIP --event-id ship-7 --module ./dist/workflows.js --user alice',
  ],
  details:
    'The event is a JSON object with a "type" (or a bare type). Without --module nothing runs in the command line: the event waits in the instance\'s inbox until the process that hosts it (on PostgreSQL, the one holding its lease; in a folder, the app when it opens the folder) takes it, exactly once and in the order queued. With --module the app\'s host applies it now; an event the state does not accept is refused (EVENT_NOT_ACCEPTED) and nothing is stored.',
  run,
};
