import type { Budget, SessionEvent, SessionMachineContext } from '../machines/session-types.js';
import type {
  SessionKey,
  SessionRecord,
  SessionStore,
  UsageTotals,
} from '../persistence/session-store.js';
import type { AgentBinding } from '../definition/agent-binding.js';
import type { Clock } from '../core/clock.js';
import type { SessionHost } from '../session-host/session-host.js';
import type { RuntimeObservers } from '../session-host/action-observers.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { WhileBusy } from '../core/busy-policy.js';
import type { QueuedMessage } from '../persistence/message-inbox.js';
import type { Message } from './message.js';

/** What an action works with while the session is loaded. */
export interface ActionContext {
  key: SessionKey;
  host: SessionHost;
  store: SessionStore;
  clock: Clock;
  binding: AgentBinding;
  /** Builds a fresh session record (for actions that create sessions, like fork). */
  newRecord(
    key: SessionKey,
    input?: Partial<SessionMachineContext>,
  ): Omit<SessionRecord, 'version'>;
  /** Per-user limits configured on the runtime. */
  userBudget: Budget | undefined;
  /** The owner's totals across sessions, read and checked when the session was loaded. */
  userUsage: UsageTotals;
  /** Builds this session's audit entries (the runtime already queued the action's own). */
  audit: AuditTrail;
}

/**
 * One thing done to a session: load, apply, save. `event` (when given) is checked against the
 * stored state before anything is loaded, so a disallowed action fails fast and saves nothing.
 */
export interface SessionAction<R = void> {
  readonly name: string;
  /** The session event this action sends, checked up front. */
  readonly event?: SessionEvent | undefined;
  /** Create the session if it does not exist (sendMessage). */
  readonly createIfMissing?: boolean | undefined;
  /** The action runs or continues a run, so it needs the agent's tools and model. */
  readonly runs?: boolean | undefined;
  /**
   * The action continues the session's stored run (a resume, decisions applied, a deadline
   * fired): only the agent that runs it may, checked before anything is loaded
   * (`WrongAgentError`).
   */
  readonly continuesRun?: boolean | undefined;
  /**
   * Checks the stored session before it is loaded into an actor (`now` from the runtime's
   * clock): a throw refuses the action, with nothing loaded, run or saved.
   */
  check?(stored: { key: SessionKey; record: SessionRecord; now: number }): void;
  /**
   * The summary of the action's audit entry (the runtime writes one per action, with the
   * action's first save): the action's name when omitted.
   */
  readonly auditSummary?: string | undefined;
  /** Cancellation and progress observers for the run this action drives. */
  readonly observe?: RuntimeObservers | undefined;
  /**
   * For an action that runs: what it does when this process is executing the session's run
   * (`'reject'` when omitted: `RunInProgressError`). See `WhileBusy`.
   */
  readonly whileBusy?: WhileBusy | undefined;
  /**
   * The message this action runs (`sendMessage`): admission reads its id
   * (`options.messageId`, a session runs an id once) and, when it is queued
   * (`whileBusy: 'queue' | 'steer'`), stores it in the session's message inbox.
   */
  readonly message?: Message | undefined;
  /**
   * The queued message this action answers (set by the runtime when it takes one from the
   * inbox): its run's first save removes it from the inbox (`SessionCommit.dequeued`).
   */
  readonly fromInbox?: QueuedMessage | undefined;
  apply(ctx: ActionContext): Promise<R>;
}
