import { SessionNotFoundError } from '../../errors/session-errors.js';
import {
  EventNotAcceptedError,
  WorkflowCancelledError,
  WorkflowMismatchError,
  WorkflowNotFoundError,
} from '../../errors/workflow-errors.js';
import type { SessionKey, SessionRecord, SessionStore } from '../../persistence/session-store.js';
import { instanceKey } from '../../workflow-host/instance-key.js';
import { readInstanceSnapshot, type HostMeta } from '../../workflow-host/instance-record.js';
import { workflowInfo, type WorkflowInfo } from '../../workflows/workflow-info.js';
import { CliFailure, EXIT } from './cli-errors.js';

/** A workflow instance a command works on: its key, record, what it holds and its host's meta. */
export interface WorkflowTarget {
  key: SessionKey;
  record: SessionRecord;
  info: WorkflowInfo;
  /** What the host keeps beside the machine's snapshot (journal run id, events applied). */
  host: HostMeta;
}

/**
 * Loads instance `id` of `userId`, of any workflow. Another user's instance is not found, like
 * a missing one (`WorkflowNotFoundError`); a session's id is `WorkflowMismatchError` saying so.
 * The record's snapshot is checked (`InvalidSessionRecordError` naming the key).
 */
export async function loadWorkflow(
  store: SessionStore,
  id: string,
  userId: string | undefined,
): Promise<WorkflowTarget> {
  const key = instanceKey(id, userId);
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
      throw new WorkflowMismatchError(id, '*', undefined);
    }
    throw new WorkflowNotFoundError(id);
  }
  if (record.workflow === undefined) throw new WorkflowMismatchError(id, '*', undefined);
  const { host } = readInstanceSnapshot(key.sessionId, record.snapshot);
  return { key, record, info: workflowInfo(record), host };
}

/**
 * Refuses a command for an instance that ended, before anything is queued: a cancelled one is
 * `WorkflowCancelledError`; an event for one that completed or failed is
 * `EventNotAcceptedError` (it accepts none); another command for it, a conflict (exit 4).
 */
export function checkRunning(target: WorkflowTarget, eventType?: string): void {
  const { info } = target;
  if (info.cancelled) throw new WorkflowCancelledError(info.id);
  if (info.status === 'active' || info.status === 'suspended') return;
  if (eventType !== undefined) throw new EventNotAcceptedError(info.id, eventType, info.value, []);
  throw new CliFailure(
    `Workflow instance "${info.id}" is ${info.status} (state ${JSON.stringify(info.value)}): nothing more to do`,
    EXIT.conflict,
  );
}
