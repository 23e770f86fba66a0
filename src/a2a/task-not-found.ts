import { TaskNotFoundError } from '@a2a-js/sdk/errors';

/** The A2A error for a task unknown to this user: missing, or another user's (the same answer). */
export function notFound(taskId: string): Error {
  return new TaskNotFoundError(`Task "${taskId}" was not found`);
}
