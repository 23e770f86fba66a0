import type { SessionKey } from '../persistence/session-store.js';
import { notFound } from './task-not-found.js';

/** A task as agentstate resolves it: one run of one session. */
export interface A2ATaskRef {
  sessionId: string;
  runId: string;
}

/**
 * The A2A task id of a session's run: `<sessionId>:<runId>`. Any process resolves it from the
 * store alone (the session, then the run); nothing in memory maps it.
 */
export function taskIdOf(ref: A2ATaskRef): string {
  return `${ref.sessionId}:${ref.runId}`;
}

/** The session and run a task id names; `undefined` for a string that is not a task id. */
export function parseTaskId(taskId: string): A2ATaskRef | undefined {
  const at = taskId.lastIndexOf(':');
  if (at <= 0 || at === taskId.length - 1) return undefined;
  return { sessionId: taskId.slice(0, at), runId: taskId.slice(at + 1) };
}

/** The session key of a task for a user. */
export function taskKey(ref: A2ATaskRef, userId: string): SessionKey {
  return { sessionId: ref.sessionId, userId };
}

/** The session key and run of a task id for a user; a string that is no task id is not found. */
export function resolveTask(taskId: string, userId: string): { key: SessionKey; runId: string } {
  const ref = parseTaskId(taskId);
  if (!ref) throw notFound(taskId);
  return { key: taskKey(ref, userId), runId: ref.runId };
}
