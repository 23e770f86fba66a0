import type { ModelSettings } from '../models/model-settings.js';
import type { ActionObservers } from '../session-host/action-observers.js';
import type { WhileBusy } from '../core/busy-policy.js';

/** Options of an action that drives a run. */
export interface RunActionOptions extends ActionObservers {
  /** Overrides the agent's turn limit for this run. */
  maxTurns?: number | undefined;
  /**
   * Model settings of a new run (`sendMessage`), merged over the agent's and stored with the
   * run; a resumed run keeps the ones it started with.
   */
  modelSettings?: ModelSettings | undefined;
  /**
   * What the message does when this process is executing the session's run (a new run only).
   * @default 'reject'
   */
  whileBusy?: WhileBusy | undefined;
  /**
   * The message's own id (a chat client's message id): a session answers an id once. The same
   * id sent again, while its run executes or after, is `MessageAnsweredError` naming that run,
   * and runs nothing. The session keeps its latest 64 ids. At most 256 characters.
   */
  messageId?: string | undefined;
  /** The session lives in a throwaway store: the RunState then carries the whole session. */
  ephemeral?: boolean | undefined;
}
