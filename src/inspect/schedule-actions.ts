import { openSchedules } from '../schedules/schedules-handle.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { HttpError } from './http-io.js';

/** An action on a schedule from the page; `by` is who acts (the inspector's `operator`). */
export type ScheduleAction = (
  runtime: SessionRuntime,
  schedule: { id: string; userId: string | undefined },
  body: Record<string, unknown>,
  by: string | undefined,
) => Promise<unknown>;

/**
 * Pauses or resumes the user's schedule (another user's is `SCHEDULE_NOT_FOUND`, 404), audited
 * `via: 'page'` with the operator as `by`; the body must be empty.
 */
function change(verb: 'pause' | 'resume'): ScheduleAction {
  return async (runtime, { id, userId }, body, by) => {
    const extra = Object.keys(body);
    if (extra.length) throw new HttpError(400, 'BAD_REQUEST', `Unknown field "${extra[0]}"`);
    const schedules = openSchedules(runtime.store, { clock: runtime.clock });
    const info = await schedules[verb](id, { userId, by, via: 'page' });
    return { id: info.id, action: verb, paused: info.paused, nextAt: info.nextAt ?? null };
  };
}

/** The actions the page can take on a schedule, by the last segment of their path. */
export const SCHEDULE_ACTIONS: Record<string, ScheduleAction> = {
  pause: change('pause'),
  resume: change('resume'),
};
