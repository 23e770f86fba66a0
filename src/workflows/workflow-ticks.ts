import { WorkflowExistsError } from '../errors/workflow-errors.js';
import type { ScheduleRecord, ScheduleTarget } from '../persistence/schedule-store.js';
import type { SessionStatus } from '../persistence/session-store.js';
import { tickError, type FiredTick, type TickFirer } from '../schedules/schedule-firing.js';

/** What the workflow ticks use of `Workflows`. */
export interface TickedWorkflows {
  readonly name: string;
  start(id: string, options: { userId?: string | undefined; input?: never }): Promise<unknown>;
  send(
    id: string,
    event: never,
    options: { userId?: string | undefined; eventId?: string | undefined },
  ): Promise<unknown>;
  get(id: string, options: { userId?: string | undefined }): Promise<{ status: SessionStatus }>;
  cancel(
    id: string,
    options: { userId?: string | undefined; reason?: string | undefined },
  ): Promise<unknown>;
}

const BUSY: readonly SessionStatus[] = ['active', 'suspended'];

/**
 * How a workflow's scheduler fires its schedules' ticks: an `event` target sends the event to
 * the instance under the tick's event id (applied once, in the instance's order: events queue
 * by nature); a `start` target starts instance `<instanceId>-<tick>` (an id starts once). A
 * start whose previous tick's instance still runs is skipped (`skip`) or that instance is
 * cancelled first (`interrupt`).
 */
export class WorkflowTicks implements TickFirer {
  constructor(private readonly workflows: TickedWorkflows) {}

  takes(target: ScheduleTarget): boolean {
    return target.type !== 'message' && target.workflow === this.workflows.name;
  }

  async fire(schedule: ScheduleRecord, tick: number, key: string): Promise<FiredTick> {
    const { target, userId } = schedule;
    if (target.type === 'message') throw new TypeError('a message target is an agent’s');
    try {
      if (target.type === 'event') {
        await this.workflows.send(target.instanceId, target.event as never, {
          userId,
          eventId: key,
        });
        return { outcome: 'started', sessionId: target.instanceId };
      }
      const id = `${target.instanceId}-${tick}`;
      const previous = schedule.lastTick?.sessionId;
      let interrupted = false;
      if (previous !== undefined && previous !== id) {
        const status = await this.workflows.get(previous, { userId }).then(
          (info) => info.status,
          () => undefined,
        );
        if (status !== undefined && BUSY.includes(status)) {
          if (schedule.overlap === 'skip') return { outcome: 'skipped', sessionId: previous };
          await this.workflows.cancel(previous, {
            userId,
            reason: `schedule ${schedule.id}: a later tick interrupted it`,
          });
          interrupted = true;
        }
      }
      await this.workflows
        .start(id, { userId, input: target.input as never })
        .catch((error: unknown) => {
          // Started by this tick before (a crash, or a claim taken over): once.
          if (!(error instanceof WorkflowExistsError)) throw error;
        });
      return { outcome: interrupted ? 'interrupted' : 'started', sessionId: id };
    } catch (error) {
      return { outcome: 'failed', sessionId: target.instanceId, error: tickError(error) };
    }
  }
}
