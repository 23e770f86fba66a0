import { AgentStateError, causeText, type ErrorScope } from './agentstate-error.js';

/**
 * The permission policy's `check` threw (or returned something that is not a decision) for a
 * call: the run fails with this error and no call of its turn runs.
 */
export class PermissionCheckError extends AgentStateError {
  constructor(toolName: string, cause: unknown, scope: ErrorScope = {}) {
    super(
      'PERMISSION_CHECK_FAILED',
      `The permission check of a call to "${toolName}" failed: ${causeText(cause)}`,
      { ...scope, cause },
    );
  }
}
