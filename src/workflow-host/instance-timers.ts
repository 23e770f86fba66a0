import type { AnyActorRef, AnyActor } from 'xstate';
import type { DurableTimer } from './instance-record.js';

/** A delayed event as XState's scheduler holds it. */
interface ScheduledEvent {
  source: AnyActorRef;
  target: AnyActorRef;
  event: { type: string };
  delay: number;
  id: string;
}

/** How the timers name actors: `''` the machine, else a child's id. */
export interface ActorPaths {
  pathOf(ref: AnyActorRef): string;
  refOf(path: string): AnyActorRef | undefined;
}

/**
 * The delayed events XState holds now (`after` delays, delayed `sendTo`/`raise`), each with its
 * absolute due time: kept for those known before (`known`), else `now` plus its delay. XState
 * keeps them in its actor system (`system.getSnapshot()`), with actor refs a store cannot hold;
 * they are stored by path.
 */
export function timersNow(
  actor: AnyActor,
  known: readonly DurableTimer[],
  now: number,
  paths: ActorPaths,
): DurableTimer[] {
  const system = actor.system as unknown as {
    getSnapshot(): { _scheduledEvents: Record<string, ScheduledEvent> };
  };
  const before = new Map(known.map((t) => [`${t.source}|${t.id}`, t]));
  return Object.values(system.getSnapshot()._scheduledEvents).map((scheduled) => {
    const source = paths.pathOf(scheduled.source);
    const previous = before.get(`${source}|${scheduled.id}`);
    return {
      id: scheduled.id,
      source,
      target: paths.pathOf(scheduled.target),
      event: scheduled.event,
      dueAt: previous?.dueAt ?? now + scheduled.delay,
    };
  });
}

/**
 * Schedules stored timers again after a restore (XState does not restore delays), each for
 * what is left of it: one due already fires at once. XState cancels it by the same id when
 * its state is left, as it would have.
 */
export function rescheduleTimers(
  actor: AnyActor,
  timers: readonly DurableTimer[],
  now: number,
  paths: ActorPaths,
): void {
  for (const timer of timers) {
    const source = paths.refOf(timer.source);
    const target = paths.refOf(timer.target);
    if (!source || !target) continue; // its actor is gone: the delayed event is moot
    actor.system.scheduler.schedule(
      source,
      target,
      timer.event,
      Math.max(0, timer.dueAt - now),
      timer.id,
    );
  }
}

/** The earliest due time (the store's deadline index holds it), if any. */
export function nextTimerAt(timers: readonly DurableTimer[]): number | undefined {
  let next: number | undefined;
  for (const timer of timers) if (next === undefined || timer.dueAt < next) next = timer.dueAt;
  return next;
}
