import { AgentStateError } from './agentstate-error.js';

/**
 * The message was sent while another process ran the session (`whileBusy: 'queue'` or
 * `'steer'`): it is stored in the session's message inbox, and the process that runs the
 * session next (the one running it now, a recovery, or the next call) answers it exactly once.
 * Its answer is in the session's history then; this call has no result of its own.
 */
export class MessageQueuedError extends AgentStateError {
  /** The message's id in the session's inbox. */
  readonly messageId: string;
  /** How it is taken: as the next run (`'queue'`) or into the running run (`'steer'`). */
  readonly policy: 'queue' | 'steer';
  constructor(sessionId: string, messageId: string, policy: 'queue' | 'steer') {
    super(
      'MESSAGE_QUEUED',
      `Session "${sessionId}" is running in another process: the message was queued ` +
        `(${policy}, id ${messageId}) and will be answered there or by the next run; ` +
        'read the answer from the session history',
      { sessionId },
    );
    this.messageId = messageId;
    this.policy = policy;
  }
}
