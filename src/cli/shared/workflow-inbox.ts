import type { QueuedMessage } from '../../persistence/message-inbox.js';
import { hasMessageInbox } from '../../persistence/store-supports.js';
import type { SessionStore } from '../../persistence/session-store.js';
import { CliFailure } from './cli-errors.js';
import type { WorkflowTarget } from './workflow-target.js';

/**
 * Queues `options` (an event, a cancel) in the instance's inbox: the store's message inbox, in
 * the order the store keeps, for the process that hosts the instance to take exactly once.
 */
export async function queueForWorkflow(
  store: SessionStore,
  target: WorkflowTarget,
  options: Record<string, unknown>,
): Promise<QueuedMessage> {
  if (!hasMessageInbox(store)) {
    throw new CliFailure('the store keeps no message inbox: nothing can be queued for a workflow');
  }
  return store.queueMessage({ key: target.key, kind: 'queue', items: [], options, at: Date.now() });
}
