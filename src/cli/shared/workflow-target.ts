import { SessionNotFoundError } from '../../errors/session-errors.js';
import type { SessionKey, SessionRecord, SessionStore } from '../../persistence/session-store.js';
import { CliFailure, EXIT } from './cli-errors.js';
import { WORKFLOW_KEY_PREFIX, storedWorkflow, type StoredWorkflow } from './stored-workflow.js';

/** The record key of instance `id` in `userId`'s partition. */
export function workflowKey(id: string, userId: string | undefined): SessionKey {
  return { sessionId: `${WORKFLOW_KEY_PREFIX}${id}`, userId };
}

/** A workflow instance a command works on: its key, record and what the record holds. */
export interface WorkflowTarget {
  key: SessionKey;
  record: SessionRecord & { workflow: string };
  instance: StoredWorkflow;
}

function workflowNotFound(id: string): Error {
  return new CliFailure(`Workflow "${id}" was not found [WORKFLOW_NOT_FOUND]`, EXIT.notFound);
}

function notAWorkflow(id: string, why: string): Error {
  return new CliFailure(`"${id}" is not a workflow: ${why} [WORKFLOW_MISMATCH]`, EXIT.notFound);
}

/**
 * Loads instance `id` of `userId`. Another user's instance is not found, like a missing one;
 * a session's id is refused, saying so (`agentstate sessions show` reads it).
 */
export async function loadWorkflow(
  store: SessionStore,
  id: string,
  userId: string | undefined,
): Promise<WorkflowTarget> {
  const key = workflowKey(id, userId);
  let record: SessionRecord;
  try {
    record = await store.load(key);
  } catch (error) {
    if (!(error instanceof SessionNotFoundError)) throw error;
    const session = await store.load({ sessionId: id, userId }).catch((e: unknown) => {
      if (e instanceof SessionNotFoundError) return undefined;
      throw e;
    });
    if (session && session.workflow === undefined) {
      throw notAWorkflow(id, `it is a session (agentstate sessions show ${id})`);
    }
    throw workflowNotFound(id);
  }
  const { workflow } = record;
  if (workflow === undefined) {
    throw notAWorkflow(id, `the record ${key.sessionId} is a session's`);
  }
  return {
    key,
    record: { ...record, workflow },
    instance: storedWorkflow({ ...record, workflow }),
  };
}

/**
 * Refuses an instance that has ended (completed, failed, cancelled or deleted): it takes no
 * more events (exit 4), and nothing is queued for it.
 */
export function checkRunning(target: WorkflowTarget, what: string): void {
  const { instance } = target;
  if (instance.status === 'active' || instance.status === 'suspended') return;
  const ended = instance.cancelled ? 'cancelled' : instance.status;
  throw new CliFailure(
    `Workflow "${instance.id}" is ${ended} (state ${JSON.stringify(instance.value)}): it takes no ${what} [WORKFLOW_ENDED]`,
    EXIT.conflict,
  );
}
