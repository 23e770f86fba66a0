import { systemClock } from '../../core/clock.js';
import { zonedIso } from '../../core/zoned-iso.js';
import type { ScheduleRule } from '../../persistence/schedule-store.js';
import type { SessionStore } from '../../persistence/session-store.js';
import type { ScheduleActor } from '../../schedules/schedule-audit.js';
import {
  openSchedules,
  type ScheduleInfo,
  type SchedulesHandle,
} from '../../schedules/schedules-handle.js';
import { CliUsageError } from './cli-errors.js';
import type { Cell } from './cli-format.js';
import { POSTGRES_OPTIONS, withCommandStore } from './command-store.js';
import type { CommandContext, OptionSpec } from './command.js';
import { operator } from './operator.js';

/** The options every `schedules` command takes: the store's. */
export const SCHEDULE_OPTIONS: Record<string, OptionSpec> = { ...POSTGRES_OPTIONS };

/** Who changes a schedule from the command line, as its audit entry names them. */
export function cliActor(): ScheduleActor {
  return { by: operator(), via: 'cli' };
}

/**
 * Runs `use` with the schedules of the command's store (the folder, or `--postgres`), on the
 * command line's clock, then closes the store. What the handle refuses as given wrong (an id
 * that is not one, a count) is a usage error of the command.
 */
export function withCommandSchedules<T>(
  ctx: CommandContext,
  command: string,
  use: (schedules: SchedulesHandle, store: SessionStore) => Promise<T>,
): Promise<T> {
  return withCommandStore(ctx, command, async ({ store }) => {
    const schedules = openSchedules(store, { clock: ctx.io.clock ?? systemClock });
    try {
      return await use(schedules, store);
    } catch (error) {
      if (error instanceof TypeError) throw new CliUsageError(error.message, command);
      throw error;
    }
  });
}

/** The zone a rule's times are shown in: a cron's own, else UTC. */
export function ruleZone(rule: ScheduleRule): string {
  return 'cron' in rule ? rule.timezone : 'UTC';
}

const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** An interval in its largest whole unit: `15m`, `2h`, `90s`, `1500ms`. */
function intervalText(ms: number): string {
  const unit = UNITS.find(([, size]) => ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}

/** The rule without its zone: `cron 0 9 * * 1`, `every 15m`, `at 2027-03-29T07:00:00+00:00`. */
export function ruleLine(rule: ScheduleRule): string {
  if ('cron' in rule) return `cron ${rule.cron}`;
  if ('every' in rule) return `every ${intervalText(rule.every)}`;
  return `at ${zonedIso(rule.at, 'UTC')}`;
}

/** An epoch-ms time in the schedule's zone, ISO with the offset; absent: `-`. */
export function fireTime(ms: number | undefined, rule: ScheduleRule): string {
  return ms === undefined ? '-' : zonedIso(ms, ruleZone(rule));
}

/** The header of {@link scheduleCells}. */
export const SCHEDULE_HEADER = [
  'ID',
  'RULE',
  'ZONE',
  'NEXT',
  'PAUSED',
  'RUNS',
  'LAST TICK',
  'OUTCOME',
  'RUN',
];

/**
 * A schedule's cells: id, rule, zone, next fire (in its zone; `-` paused or ended), paused,
 * runs (of `maxRuns`), the last tick's time, outcome (with a failure's code) and run.
 */
export function scheduleCells(s: ScheduleInfo): Cell[] {
  const last = s.lastTick;
  const outcome = last
    ? `${last.outcome}${last.error ? ` ${last.error.code}` : ''}${s.firing.length ? ` (${s.firing.length} firing)` : ''}`
    : s.firing.length
      ? `${s.firing.length} firing`
      : '-';
  return [
    s.id,
    ruleLine(s.rule),
    ruleZone(s.rule),
    s.paused ? '-' : fireTime(s.nextAt, s.rule),
    s.paused ? { text: 'paused', style: 'yellow' } : 'no',
    s.maxRuns === undefined ? String(s.runs) : `${s.runs}/${s.maxRuns}`,
    fireTime(last?.tick, s.rule),
    {
      text: outcome,
      style: last?.outcome === 'failed' ? 'red' : last?.outcome === 'started' ? 'green' : undefined,
    },
    last?.runId ?? '-',
  ];
}

/** "of user alice" / "of the anonymous bucket". */
export function whoseText(user: string | undefined): string {
  return user === undefined ? 'of the anonymous bucket' : `of user ${user}`;
}
