import { AgentStateError } from './agentstate-error.js';

/**
 * A message whose id (`RunOptions.messageId`) the session already answered, or is answering
 * now (`running`: its run executes in this process): it is not run again, and nothing is
 * stored. Its answer is run `runId`'s; `agent.attach` reads the session's current (else last)
 * run.
 */
export class MessageAnsweredError extends AgentStateError {
  /** The message's id, as the caller gave it. */
  readonly messageId: string;
  /** That run is executing in this process now. */
  readonly running: boolean;
  constructor(sessionId: string, messageId: string, runId: string, running: boolean) {
    super(
      'MESSAGE_ANSWERED',
      `Session "${sessionId}" ${running ? 'is answering' : 'answered'} message "${messageId}" ` +
        `(run ${runId}): it is not run again; read its answer with agent.attach or the history`,
      { sessionId, runId },
    );
    this.messageId = messageId;
    this.running = running;
  }
}
