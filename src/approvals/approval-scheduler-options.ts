import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { DecisionInbox } from '../persistence/decision-inbox.js';
import type { ScheduleStore } from '../persistence/schedule-store.js';
import {
  supportsCapability,
  hasDecisionInbox,
  hasSchedules,
} from '../persistence/store-supports.js';
import type { ScheduleFiringOptions } from '../schedules/schedule-firing.js';
import type { Clock } from '../core/clock.js';
import type { RunResult } from '../session-host/run-result.js';
import type { SessionAction } from '../actions/session-action.js';

/** Options of `runtime.startScheduler()` / `agent.startScheduler()`. */
export interface ApprovalSchedulerOptions {
  /**
   * Called with every error of a due session (a damaged record, a failed save, ...) and every
   * damaged index entry (`InvalidSessionRecordError`, once each); the scheduler goes on.
   * @default a process warning (`AgentstateSchedulerWarning`)
   */
  onError?: ((error: unknown, key: SessionKey | undefined) => void) | undefined;
  /**
   * Called after the scheduler continued a run: past its approval deadline (`reason:
   * 'deadline'`) or with decisions submitted by `agent.submitDecisions` (`'decisions'`).
   */
  onContinued?:
    | ((event: {
        key: SessionKey;
        result: RunResult<unknown>;
        reason: 'deadline' | 'decisions';
      }) => void)
    | undefined;
  /**
   * How long (ms) a due session is left before it is tried again when this process is already
   * executing its run (`RunInProgressError`) or it changed meanwhile (`SessionConflictError`).
   * @default 1000
   */
  retryDelayMs?: number | undefined;
  /** Index entries read per scan. @default 100 */
  batchSize?: number | undefined;
  /**
   * A store with a decision inbox (PostgreSQL): hear of submitted decisions at once through
   * the store's notifications (`LISTEN`). Off, or while the listening connection is down,
   * the inbox is polled every `pollIntervalMs`. @default true
   */
  listen?: boolean | undefined;
  /** How often (ms, by the runtime's clock) the decision inbox is polled without `listen`. @default 5000 */
  pollIntervalMs?: number | undefined;
  /**
   * How the scheduler fires the ticks of the schedules whose message targets name this agent
   * (`openSchedules`), with a store that keeps schedules; `false`: it fires none.
   * @default {}
   */
  schedules?: ScheduleFiringOptions | false | undefined;
}

/** A running scheduler. */
export interface ApprovalSchedulerHandle {
  /** Stops the scheduler; resolves once the run it is continuing (if any) has paused or ended. */
  stop(): Promise<void>;
}

/** What the scheduler needs of its runtime. */
export interface SchedulerHost {
  store: Required<Pick<SessionStore, 'dueApprovals' | 'dropStaleDeadline'>> & {
    inbox?: DecisionInbox | undefined;
    schedules?: ScheduleStore | undefined;
  };
  /** The agent whose runs the runtime executes: the scheduler fires its schedules' ticks. */
  agentName: string;
  clock: Clock;
  /** Only this session (a scoped runtime); omitted: every session of the store. */
  scope: SessionKey | undefined;
  execute<R>(key: SessionKey, action: SessionAction<R>): Promise<R>;
  /** Subscribes to the runtime's saves; returns the unsubscribe function. */
  onSaved(listener: (record: SessionRecord) => void): () => void;
}

/** The store's approval-deadline index; `TypeError` for a store that keeps none. */
export function deadlineIndexOf(store: SessionStore): SchedulerHost['store'] {
  if (!supportsCapability(store, 'deadlineIndex')) {
    throw new TypeError(
      'runtime.startScheduler(): the store keeps no approval-deadline index (dueApprovals and dropStaleDeadline)',
    );
  }
  return {
    dueApprovals: store.dueApprovals.bind(store),
    dropStaleDeadline: store.dropStaleDeadline.bind(store),
    inbox: hasDecisionInbox(store) ? store : undefined,
    schedules: hasSchedules(store) ? store : undefined,
  };
}
