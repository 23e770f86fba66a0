/**
 * What the page reads of the inspector's schedule endpoints (`schedule-listing.ts` and
 * `schedule-actions.ts` write them): a page of a user's schedules with their last tick's run.
 */

/** What became of the work a tick started, as it is now (`null` status: no longer known). */
export interface TickRun {
  kind: 'run' | 'workflow';
  id: string;
  status: string | null;
  interruption?: string | undefined;
  error?: { code?: string | undefined; message: string } | undefined;
}

/** A schedule's last tick. */
export interface TickSummary {
  tick: number;
  /** Its time in the schedule's zone, ISO with the offset. */
  time: string;
  outcome: string;
  runId?: string | undefined;
  sessionId?: string | undefined;
  missed?: number | undefined;
  error?: { code: string; message: string } | undefined;
  run: TickRun | null;
}

/** A schedule as `/api/schedules` lists it. */
export interface ScheduleSummary {
  id: string;
  description: string | null;
  rule: string;
  zone: string;
  target: { type: 'message' | 'event' | 'start'; name: string; id: string };
  paused: boolean;
  nextAt: number | null;
  /** The next fire time in the zone, ISO with the offset. */
  next: string | null;
  runs: number;
  maxRuns: number | null;
  firing: number[];
  lastTick: TickSummary | null;
}

/** `/api/schedules`: a page of the user's schedules. */
export interface SchedulePage {
  userId: string | null;
  schedules: ScheduleSummary[];
  nextCursor?: string | undefined;
}

/** `POST /api/schedules/:id/pause|resume`. */
export interface ScheduleChange {
  id: string;
  action: 'pause' | 'resume';
  paused: boolean;
  nextAt: number | null;
}
