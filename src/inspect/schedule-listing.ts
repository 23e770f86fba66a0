import { zonedIso } from '../core/zoned-iso.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import { WorkflowNotFoundError } from '../errors/workflow-errors.js';
import type { SerializedError } from '../errors/agentstate-error.js';
import type { ScheduleRule, TickOutcome } from '../persistence/schedule-store.js';
import type { RunStatus } from '../runs/run-status.js';
import type { SessionStatus } from '../persistence/session-store.js';
import { ruleText } from '../schedules/schedule-audit.js';
import { openSchedules, type ScheduleInfo } from '../schedules/schedules-handle.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { HttpError } from './http-io.js';
import { loadInstance } from './workflow-reads.js';

/** The most schedules one page of `/api/schedules` serves. */
export const MAX_SCHEDULE_PAGE = 200;

/** The query names of `/api/schedules` (`user` and `token` are read by the server itself). */
const NAMES: ReadonlySet<string> = new Set(['cursor', 'limit', 'user', 'token']);

const bad = (message: string) => new HttpError(400, 'BAD_REQUEST', message);

/**
 * What became of the work a tick started: a message target's run (its status, and the error a
 * failed one ended with) read from its session, or a workflow instance's status. `status: null`
 * when the session no longer holds that run (a later run replaced it) or the instance is gone.
 */
export interface TickRunView {
  kind: 'run' | 'workflow';
  /** The run's id, or the instance's. */
  id: string;
  /** A run's `RunStatus`, or an instance's session status; `null` when no longer known. */
  status: RunStatus | SessionStatus | null;
  /** Why a paused run stands still (`error`, `approval`, ...). */
  interruption?: string | undefined;
  error?: SerializedError | undefined;
}

/** A schedule's last tick as the inspector shows it. */
export interface TickView {
  tick: number;
  /** The tick's time in the schedule's zone, ISO with its offset. */
  time: string;
  firedAt: number;
  outcome: TickOutcome;
  runId?: string | undefined;
  sessionId?: string | undefined;
  missed?: number | undefined;
  error?: { code: string; message: string } | undefined;
  /** The work it started, as it is now. */
  run: TickRunView | null;
}

/** A schedule as `/api/schedules` lists it (never the message text nor the event's values). */
export interface ScheduleView {
  id: string;
  description: string | null;
  /** The rule in one line: `cron 0 9 * * 1 (Europe/Berlin)`, `every 900s`, `at 2027-…Z`. */
  rule: string;
  kind: 'cron' | 'every' | 'at';
  /** The zone its times are in: a cron's own, else UTC. */
  zone: string;
  target: { type: 'message' | 'event' | 'start'; name: string; id: string };
  overlap: ScheduleInfo['overlap'];
  catchUp: ScheduleInfo['catchUp'];
  paused: boolean;
  /** The next tick (epoch ms) and its time in the zone; `null` once ended. */
  nextAt: number | null;
  next: string | null;
  runs: number;
  maxRuns: number | null;
  endAt: number | null;
  /** Ticks a scheduler is firing now. */
  firing: number[];
  lastTick: TickView | null;
}

/** One page of a user's schedules. */
export interface SchedulePageView {
  userId: string | null;
  schedules: ScheduleView[];
  nextCursor?: string | undefined;
}

const zoneOf = (rule: ScheduleRule) => ('cron' in rule ? rule.timezone : 'UTC');

/** The run (or instance) a tick started, as it is now; `null` when it started none. */
async function tickRun(
  runtime: SessionRuntime,
  schedule: ScheduleInfo,
): Promise<TickRunView | null> {
  const tick = schedule.lastTick;
  if (!tick || tick.sessionId === undefined) return null;
  const { userId } = schedule;
  if (schedule.target.type === 'message') {
    if (tick.runId === undefined) return null;
    const view = await runtime
      .getSession({ sessionId: tick.sessionId, userId })
      .catch((error: unknown) => {
        if (error instanceof SessionNotFoundError) return undefined;
        throw error;
      });
    const run = view?.runStatus?.runId === tick.runId ? view.runStatus : undefined;
    return {
      kind: 'run',
      id: tick.runId,
      status: run?.status ?? null,
      ...(run?.interruption ? { interruption: run.interruption } : {}),
      ...(run?.error ? { error: run.error } : {}),
    };
  }
  if (tick.outcome === 'skipped' || tick.outcome === 'missed') return null;
  const instance = await loadInstance(runtime, tick.sessionId, userId).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  });
  return { kind: 'workflow', id: tick.sessionId, status: instance?.record.status ?? null };
}

async function scheduleView(runtime: SessionRuntime, s: ScheduleInfo): Promise<ScheduleView> {
  const zone = zoneOf(s.rule);
  const { target } = s;
  const last = s.lastTick;
  return {
    id: s.id,
    description: s.description ?? null,
    rule: ruleText(s.rule),
    kind: 'cron' in s.rule ? 'cron' : 'every' in s.rule ? 'every' : 'at',
    zone,
    target:
      target.type === 'message'
        ? { type: 'message', name: target.agent, id: target.sessionId }
        : { type: target.type, name: target.workflow, id: target.instanceId },
    overlap: s.overlap,
    catchUp: s.catchUp,
    paused: s.paused,
    nextAt: s.nextAt ?? null,
    next: s.nextAt === undefined ? null : zonedIso(s.nextAt, zone),
    runs: s.runs,
    maxRuns: s.maxRuns ?? null,
    endAt: s.endAt ?? null,
    firing: s.firing,
    lastTick: last
      ? {
          tick: last.tick,
          time: zonedIso(last.tick, zone),
          firedAt: last.firedAt,
          outcome: last.outcome,
          ...(last.runId === undefined ? {} : { runId: last.runId }),
          ...(last.sessionId === undefined ? {} : { sessionId: last.sessionId }),
          ...(last.missed === undefined ? {} : { missed: last.missed }),
          ...(last.error === undefined ? {} : { error: last.error }),
          run: await tickRun(runtime, s),
        }
      : null,
  };
}

/**
 * A page of a user's schedules (the user the server admitted: the partition holds), in id
 * order (`limit` default 50, at most {@link MAX_SCHEDULE_PAGE}; `cursor` from the page before):
 * each with its rule, zone, next fire time, paused, runs, the ticks being fired, and its last
 * tick with the run it started read from its session (or the instance it started or sent to).
 * A store without schedules is `SCHEDULES_UNSUPPORTED`; an unknown or repeated name, a bad
 * number or cursor a 400.
 */
export async function userSchedules(
  runtime: SessionRuntime,
  userId: string | undefined,
  params: URLSearchParams,
): Promise<SchedulePageView> {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!NAMES.has(name)) throw bad(`Unknown query parameter "${name}"`);
    if (seen.has(name)) throw bad(`The query parameter "${name}" is given twice`);
    seen.add(name);
  }
  const rawLimit = params.get('limit');
  const limit = rawLimit === null ? 50 : Number(rawLimit);
  if (rawLimit === '' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SCHEDULE_PAGE) {
    throw bad(`"limit" must be an integer from 1 to ${MAX_SCHEDULE_PAGE}`);
  }
  const cursor = params.get('cursor') ?? undefined;
  if (cursor === '') throw bad('"cursor" must be the nextCursor of a previous page');
  const page = await openSchedules(runtime.store, { clock: runtime.clock }).list({
    userId,
    limit,
    ...(cursor === undefined ? {} : { cursor }),
  });
  const schedules: ScheduleView[] = [];
  for (const s of page.schedules) schedules.push(await scheduleView(runtime, s));
  return {
    userId: userId ?? null,
    schedules,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  };
}
