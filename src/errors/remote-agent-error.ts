import { AgentStateError, type ErrorScope } from './agentstate-error.js';

/**
 * A remote agent's task ended without an answer: the remote side reports it `failed`,
 * `canceled`, `rejected` or `auth-required`. Raised by a remote agent's model (`remoteAgent`
 * in `agentstate-runtime/a2a`), so the call of that sub-agent gets it as its tool error.
 */
export class RemoteAgentError extends AgentStateError {
  /** The remote task's id. */
  readonly taskId: string;
  /** The state the remote task ended in (A2A names: `failed`, `canceled`, ...). */
  readonly state: string;
  constructor(
    agent: string,
    where: { taskId: string; state: string; reason?: string | undefined },
    scope: ErrorScope = {},
  ) {
    const why = where.reason ? `: ${where.reason}` : '';
    super(
      'REMOTE_AGENT_FAILED',
      `Remote agent "${agent}" task ${where.taskId} ended ${where.state}${why}`,
      scope,
    );
    this.taskId = where.taskId;
    this.state = where.state;
  }
}
