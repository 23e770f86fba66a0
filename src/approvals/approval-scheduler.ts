import {
  RunInProgressError,
  SessionConflictError,
  SessionNotFoundError,
  WrongAgentError,
  DefinitionChangedError,
} from '../errors/session-errors.js';
import { WorkflowMismatchError } from '../errors/workflow-errors.js';
import type { SessionKey } from '../persistence/session-store.js';
import type { DeadlineEntry } from '../persistence/approval-deadlines.js';
import { type DecisionWatch } from '../persistence/decision-inbox.js';
import { continueRun } from '../actions/continue-run.js';
import { cancelRun } from '../actions/cancel-run.js';
import { cancelOf } from '../persistence/run-cancels.js';
import { NoOverdueApproval, expireApprovals } from '../actions/expire-approvals.js';
import { parseDecisions } from '../runs/run-state.js';
import {
  type ApprovalSchedulerHandle,
  type ApprovalSchedulerOptions,
  type SchedulerHost,
} from './approval-scheduler-options.js';
import { DeadlineLoop } from './deadline-loop.js';
import { MessageTicks } from './message-ticks.js';

const DEFAULT_POLL_MS = 5000;

/**
 * Fires approval deadlines on its own (issue 9, point 7). It scans the store's deadline index
 * for due entries and continues each of those runs (`expireApprovals`): the restored durable
 * timer rejects the overdue calls with reason `timeout` and the run goes on. On start it
 * catches up with every deadline that passed while no process ran; then it sleeps with the
 * injected clock until the next deadline, woken early by a save of this runtime that writes an
 * earlier one. A session whose run another agent runs is left alone (`WrongAgentError`), for
 * that agent's scheduler; so is one whose run another definition of this agent started
 * (`DefinitionChangedError`, reported once). With a store that keeps a decision inbox it also applies the decisions other
 * processes submitted (`agent.submitDecisions`), woken by the store's notifications, else
 * polling the inbox on the injected clock. With a store that keeps schedules it fires the
 * ticks of the schedules whose message targets name its agent (`MessageTicks`), in the same
 * loop.
 */
export class ApprovalScheduler extends DeadlineLoop implements ApprovalSchedulerHandle {
  /** The inbox subscription while it lives. */
  private watch: DecisionWatch | undefined;
  /** A lost subscription was reported (once per outage). */
  private watchLost = false;
  /** After a loss, listening is tried again at the next poll (not at once: the server may be down). */
  private listenAt = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly host: SchedulerHost,
    private readonly options: ApprovalSchedulerOptions = {},
  ) {
    super(host.store, host.clock, options, 'approval');
    this.unsubscribe = host.onSaved((record) => {
      // A workflow instance's timers are its host's scheduler's (`workflows().startScheduler`).
      if (record.workflow !== undefined) return;
      const at = record.approvalDeadline;
      if (at !== undefined && at < this.sleepingUntil && this.inScope(record)) this.wake();
    });
    this.fireSchedules(host.store.schedules, new MessageTicks(host, host.agentName));
    this.run();
  }

  protected override async stopped_(): Promise<void> {
    this.unsubscribe();
    await this.watch?.close().catch(() => undefined);
    this.watch = undefined;
  }

  protected override sleepLimit(at: number | undefined, now: number): number | undefined {
    if (!this.host.store.inbox || this.watch) return at;
    return Math.min(at ?? Infinity, now + (this.options.pollIntervalMs ?? DEFAULT_POLL_MS));
  }

  /** Listens to the inbox (again, after a loss) when it has one and `listen` is on. */
  protected override async beforePass(): Promise<void> {
    const { inbox } = this.host.store;
    if (!inbox || this.watch || this.options.listen === false || this.stopped) return;
    if (this.host.clock.now() < this.listenAt) return;
    try {
      const watch = await inbox.watchDecisions(
        () => this.wake(),
        (error) => {
          if (this.watch === watch) this.watch = undefined;
          this.lostWatch(error);
          this.wake();
        },
      );
      if (this.stopped) await watch.close();
      else {
        this.watch = watch;
        this.watchLost = false;
      }
    } catch (error) {
      this.lostWatch(error); // polled meanwhile; listened to again on the next pass
    }
  }

  private lostWatch(error: unknown): void {
    this.listenAt = this.host.clock.now() + (this.options.pollIntervalMs ?? DEFAULT_POLL_MS);
    if (this.watchLost || this.stopped) return;
    this.watchLost = true;
    this.report(error, undefined);
  }

  /** Applies the submitted decisions; true when some must be tried again later. */
  protected override async afterPass(): Promise<boolean> {
    const { inbox } = this.host.store;
    if (!inbox) return false;
    const page = await inbox.submittedDecisions({ limit: this.batchSize });
    for (const error of page.damaged) this.reportOnce(error);
    let retry = false;
    for (const entry of page.submitted) {
      if (this.stopped) break;
      if (!this.inScope(entry.key)) continue;
      const { key } = entry;
      try {
        // A cancel the process executing the run did not take (it ended or died first).
        const cancel = cancelOf(entry.decisions);
        if (cancel) await this.host.execute(key, cancelRun(cancel.by));
        else {
          const decisions = parseDecisions(entry.decisions);
          const result = await this.host.execute(key, continueRun({ decisions }));
          this.options.onContinued?.({ key, result, reason: 'decisions' });
        }
      } catch (error) {
        if (error instanceof RunInProgressError || error instanceof SessionConflictError) {
          retry = true;
          continue;
        }
        // Another agent's run: left in the inbox for that agent's scheduler.
        if (error instanceof WrongAgentError) continue;
        // Another definition of the agent started the run: left in the inbox, for a process
        // that runs that definition (or this one once it declares the change compatible).
        if (error instanceof DefinitionChangedError) {
          this.reportOnce(error);
          continue;
        }
        // Stale (applied already, overtaken by a deadline), expired or gone: never applied.
        this.report(error, key);
      }
      await inbox.dropDecisions(entry).catch((e: unknown) => this.report(e, key));
    }
    return retry;
  }

  /** Continues one due session; false when it must be tried again later. */
  protected async fire(entry: DeadlineEntry): Promise<boolean> {
    const { key } = entry;
    try {
      const result = await this.host.execute(key, expireApprovals());
      this.options.onContinued?.({ key, result, reason: 'deadline' });
      return true;
    } catch (error) {
      if (error instanceof RunInProgressError || error instanceof SessionConflictError) {
        return false;
      }
      // Another agent's run, or a workflow instance: fired by its own scheduler.
      if (error instanceof WrongAgentError || error instanceof WorkflowMismatchError) return true;
      // Another definition of the agent started the run: its deadline is left as it is.
      if (error instanceof DefinitionChangedError) {
        this.reportOnce(error);
        return true;
      }
      // No overdue approval, or no session: the entry is stale (never acted on); drop it if
      // the record agrees.
      if (error instanceof NoOverdueApproval || error instanceof SessionNotFoundError) {
        await this.dropStale(entry);
        return true;
      }
      this.report(error, key);
      return true;
    }
  }

  protected override inScope(key: SessionKey): boolean {
    const { scope } = this.host;
    return !scope || (scope.sessionId === key.sessionId && scope.userId === key.userId);
  }
}
