import type { QueuedMessage } from '../../persistence/message-inbox.js';
import { hasMessageInbox } from '../../persistence/store-supports.js';
import type { SessionStore } from '../../persistence/session-store.js';
import { commandSubmission, type InstanceCommand } from '../../workflow-host/instance-command.js';
import { CliFailure } from './cli-errors.js';
import type { WorkflowTarget } from './workflow-target.js';

/**
 * Queues `command` (an event, a cancel, a decision) in the instance's inbox, as `send` from
 * any process does: the process that hosts the instance takes it, exactly once, in order.
 */
export async function queueForWorkflow(
  store: SessionStore,
  target: WorkflowTarget,
  command: InstanceCommand,
): Promise<QueuedMessage> {
  if (!hasMessageInbox(store)) {
    throw new CliFailure('the store keeps no message inbox: nothing can be queued for a workflow');
  }
  return store.queueMessage(commandSubmission(target.key, command, Date.now()));
}
