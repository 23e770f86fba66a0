import { DeadlineLoop, type DeadlineLoopOptions } from '../approvals/deadline-loop.js';
import type { DeadlineEntry } from '../persistence/approval-deadlines.js';
import { hasSchedules, supportsCapability } from '../persistence/store-supports.js';
import { WorkflowTicks, type TickedWorkflows } from './workflow-ticks.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { isScheduleFiringOptions } from '../schedules/schedule-firing.js';
import { WorkflowMismatchError, WorkflowNotFoundError } from '../errors/workflow-errors.js';
import type { WorkflowHost } from '../workflow-host/workflow-host.js';
import { instanceIdOf } from '../workflow-host/instance-key.js';

/** Options of `workflows().startScheduler()`. */
export type WorkflowSchedulerOptions = DeadlineLoopOptions;

const OPTION_NAMES = optionNames<WorkflowSchedulerOptions>({
  onError: true,
  retryDelayMs: true,
  batchSize: true,
  schedules: true,
});

/** A `TypeError` naming an option of `workflows().startScheduler()` that is unknown or wrong. */
function checkWorkflowSchedulerOptions(options: unknown): void {
  new OptionChecker('workflows().startScheduler()', options, OPTION_NAMES)
    .function('onError')
    .positiveInteger('retryDelayMs')
    .positiveInteger('batchSize')
    .check(
      'schedules',
      'false or { claimMs, graceMs, maxConcurrentTicks, pollMs }',
      isScheduleFiringOptions,
    );
}

/**
 * Fires the durable timers of one workflow's instances: the deadline loop sessions' approval
 * deadlines use, over the same index of the store, whose rows for an instance hold its earliest
 * timer. A due instance is restored (by whichever process fires it first: its lease and the
 * version check make the firing once); its timers due by now fire and it is saved. Instances of
 * other workflows and sessions are left to their own schedulers. With a store that keeps
 * schedules it fires the ticks of the schedules whose targets name this workflow, in the same
 * loop (`WorkflowTicks`).
 */
export class WorkflowScheduler extends DeadlineLoop {
  constructor(
    private readonly host: WorkflowHost,
    options: WorkflowSchedulerOptions = {},
    /** The workflow whose schedules' ticks it fires (events and starts). */
    ticks?: TickedWorkflows,
  ) {
    checkWorkflowSchedulerOptions(options);
    const { store, clock } = host.config;
    if (!supportsCapability(store, 'deadlineIndex')) {
      throw new TypeError(
        'workflows().startScheduler(): the store keeps no deadline index (dueApprovals and dropStaleDeadline)',
      );
    }
    super(
      {
        dueApprovals: (q) => store.dueApprovals(q),
        dropStaleDeadline: (e) => store.dropStaleDeadline(e),
      },
      clock,
      options,
      'workflow timer',
    );
    this.unsubscribe = host.onSaved((at) => {
      if (at < this.sleepingUntil) this.wake();
    });
    if (ticks) {
      this.fireSchedules(hasSchedules(store) ? store : undefined, new WorkflowTicks(ticks));
    }
    this.run();
  }

  private readonly unsubscribe: () => void;

  protected override async stopped_(): Promise<void> {
    this.unsubscribe();
  }

  protected async fire(entry: DeadlineEntry): Promise<boolean> {
    const id = instanceIdOf(entry.key.sessionId);
    try {
      const driven = await this.host.drive(entry.key, id);
      // Held by another process: it fires its own timers (or this loop tries again).
      return driven !== undefined;
    } catch (error) {
      // A session's approval deadline, or another workflow's timer: not this loop's.
      if (error instanceof WorkflowMismatchError) return true;
      if (error instanceof WorkflowNotFoundError) {
        await this.dropStale(entry);
        return true;
      }
      this.report(error, entry.key);
      return true;
    }
  }
}
