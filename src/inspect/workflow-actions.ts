import type { SessionRuntime } from '../sessions/session-runtime.js';
import { optionalString, requiredString } from './inspector-actions.js';
import type { InspectorWorkflows } from './inspector-workflows.js';
import { HttpError } from './http-io.js';
import { loadInstance } from './workflow-reads.js';

/** An action on a workflow instance from the page, from the request's JSON body. */
export type WorkflowAction = (
  target: { runtime: SessionRuntime; workflows: InspectorWorkflows },
  instance: { id: string; userId: string | undefined },
  body: Record<string, unknown>,
) => Promise<unknown>;

/**
 * A decision on a call the instance's nested agent waits for (`{ callId, message? }`), through
 * the workflow's host (`approve` / `reject`): the agent's run goes on and the workflow moves on
 * as its machine says. The instance is read first in the user's partition (another user's is
 * not found) and its workflow must be one the inspector hosts (409 `WRONG_WORKFLOW`).
 */
function decide(approve: boolean): WorkflowAction {
  return async ({ runtime, workflows }, { id, userId }, body) => {
    const callId = requiredString(body, 'callId');
    const message = approve ? undefined : optionalString(body, 'message');
    if (approve && body['message'] !== undefined) {
      throw new HttpError(400, 'BAD_REQUEST', '"message" goes with a rejection only');
    }
    const { record } = await loadInstance(runtime, id, userId);
    const host = workflows.host(id, record.workflow ?? '');
    const info = approve
      ? await host.approve(id, callId, { userId })
      : await host.reject(id, callId, { userId, ...(message ? { message } : {}) });
    return { callId, decision: approve ? 'approved' : 'rejected', workflow: info };
  };
}

/** The actions the page can take on a workflow instance, by the last segment of their path. */
export const WORKFLOW_ACTIONS: Record<string, WorkflowAction> = {
  approve: decide(true),
  reject: decide(false),
};
