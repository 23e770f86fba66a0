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
  /**
   * The message's own id (`RunOptions.messageId`) was already waiting in the inbox, as message
   * `messageId`: it is answered once, as that message, and nothing new was stored.
   */
  readonly again: boolean;
  constructor(sessionId: string, messageId: string, policy: 'queue' | 'steer', again = false) {
    super(
      'MESSAGE_QUEUED',
      again
        ? `Session "${sessionId}" already holds this message id in its inbox (${policy}, id ` +
            `${messageId}): it is not queued again and is answered once; read the answer from ` +
            'the session history'
        : `Session "${sessionId}" is running in another process: the message was queued ` +
            `(${policy}, id ${messageId}) and will be answered there or by the next run; ` +
            'read the answer from the session history',
      { sessionId },
    );
    this.messageId = messageId;
    this.policy = policy;
    this.again = again;
  }
}
