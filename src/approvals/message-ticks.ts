import { sendMessage } from '../actions/send-message.js';
import type { WhileBusy } from '../core/busy-policy.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { MessageQueuedError } from '../errors/message-queued-error.js';
import { RunCancelledError } from '../errors/run-errors.js';
import { RunInProgressError, RunPausedError } from '../errors/session-errors.js';
import type { ScheduleRecord, ScheduleTarget } from '../persistence/schedule-store.js';
import { tickError, type FiredTick, type TickFirer } from '../schedules/schedule-firing.js';
import type { SchedulerHost } from './approval-scheduler-options.js';

type MessageTarget = Extract<ScheduleTarget, { type: 'message' }>;

/**
 * How an agent's scheduler fires its schedules' ticks: a message into the target session (made
 * if missing) of the schedule's user, as an ordinary run of the agent, under the tick's message
 * id (a session answers an id once, so a tick fired again after a crash runs once), with the
 * schedule's id and tick in the run's metadata. The overlap policy is the message's busy
 * policy: `skip` meets a busy session as `RunInProgressError` (the tick is skipped), `queue`
 * waits in the session's inbox, `interrupt` cancels the running run (tried as `skip` first, so
 * the tick knows it interrupted).
 */
export class MessageTicks implements TickFirer {
  constructor(
    private readonly host: Pick<SchedulerHost, 'execute' | 'scope'>,
    private readonly agentName: string,
  ) {}

  takes(target: ScheduleTarget): boolean {
    return target.type === 'message' && target.agent === this.agentName;
  }

  async fire(
    schedule: ScheduleRecord,
    tick: number,
    key: string,
    retry: boolean,
  ): Promise<FiredTick | 'later'> {
    const target = schedule.target as MessageTarget;
    const { scope } = this.host;
    const sessionId = target.sessionId;
    if (scope && (scope.sessionId !== sessionId || scope.userId !== schedule.userId))
      return 'later';
    const send = (whileBusy: WhileBusy) =>
      this.host.execute(
        { sessionId, userId: schedule.userId },
        sendMessage(target.text, {
          messageId: key,
          whileBusy,
          metadata: { ...target.metadata, schedule: { id: schedule.id, tick } },
        }),
      );
    const policy = schedule.overlap;
    try {
      const result = await send(policy === 'queue' ? 'queue' : 'reject');
      return { outcome: 'started', runId: result.id, sessionId };
    } catch (error) {
      if (error instanceof MessageAnsweredError) {
        return { outcome: 'started', runId: error.runId, sessionId };
      }
      if (error instanceof MessageQueuedError) return { outcome: 'queued', sessionId };
      if (error instanceof RunCancelledError) {
        // Its run started, then a later message interrupted it.
        return { outcome: 'started', runId: error.runId, sessionId, error: tickError(error) };
      }
      if (error instanceof RunInProgressError || error instanceof RunPausedError) {
        if (retry) return 'later';
        if (policy === 'interrupt' && error instanceof RunInProgressError) {
          return this.interrupt(send, sessionId);
        }
        return { outcome: 'skipped', sessionId, error: tickError(error) };
      }
      return { outcome: 'failed', sessionId, error: tickError(error) };
    }
  }

  private async interrupt(
    send: (whileBusy: WhileBusy) => Promise<{ id: string }>,
    sessionId: string,
  ): Promise<FiredTick> {
    try {
      const result = await send('interrupt');
      return { outcome: 'interrupted', runId: result.id, sessionId };
    } catch (error) {
      if (error instanceof MessageAnsweredError) {
        return { outcome: 'interrupted', runId: error.runId, sessionId };
      }
      return { outcome: 'failed', sessionId, error: tickError(error) };
    }
  }
}
