import { systemClock } from '../../core/clock.js';
import { zonedIso } from '../../core/zoned-iso.js';
import { checkedRule, nextTicks } from '../../schedules/schedule-rule.js';
import type { ScheduleRule } from '../../persistence/schedule-store.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import {
  SCHEDULE_OPTIONS,
  ruleLine,
  ruleZone,
  withCommandSchedules,
} from '../shared/schedule-command.js';

const NAME = 'schedules next';
const RULE_FLAGS = ['cron', 'tz', 'every', 'at'];

/** The next fire times of a saved schedule (`<scheduleId>`) or of a rule not saved (`--cron`...). */
async function run(ctx: CommandContext): Promise<void> {
  const count = intFlag(ctx, NAME, 'count', 1) ?? 5;
  if (count > 1000) throw new CliUsageError(`--count must be at most 1000, got ${count}`, NAME);
  const id = ctx.args['scheduleId'];
  const given = RULE_FLAGS.filter((n) => ctx.flags[n] !== undefined);
  if ((id === undefined) === (given.length === 0)) {
    throw new CliUsageError(
      id === undefined
        ? 'give a schedule id, or a rule: --cron <pattern> [--tz <zone>], --every <interval> or --at <ISO>'
        : `${given.map((n) => `--${n}`).join(', ')} is for a rule not saved: leave out the schedule id`,
      NAME,
    );
  }
  let rule: ScheduleRule;
  let times: number[];
  let paused = false;
  if (id !== undefined) {
    ({ rule, times, paused } = await withCommandSchedules(ctx, NAME, async (schedules) => {
      const info = await schedules.get(id, { userId: ctx.user });
      const next = await schedules.next(id, { userId: ctx.user, count });
      return { rule: info.rule, times: next, paused: info.paused };
    }));
  } else {
    const now = (ctx.io.clock ?? systemClock).now();
    const text = (name: string) => stringFlag(ctx, name);
    rule = checkedRule(
      { cron: text('cron'), timezone: text('tz'), every: text('every'), at: text('at') },
      now,
      undefined,
    );
    times = nextTicks(rule, now, count);
  }
  const zone = ruleZone(rule);
  if (ctx.json) {
    ctx.io.out(
      json({
        ...(id === undefined ? {} : { id }),
        rule,
        zone,
        ...(paused ? { paused } : {}),
        next: times.map((at) => ({ at, time: zonedIso(at, zone) })),
      }),
    );
    return;
  }
  const what = id === undefined ? ruleLine(rule) : `schedule ${id} (${ruleLine(rule)})`;
  const lines = times.map((at) => `${zonedIso(at, zone)}  ${zone}\n`);
  const note = paused ? ' (paused: none fires until it is resumed)' : '';
  if (lines.length === 0) {
    ctx.io.out(`${what}: no more fire times${note}\n`);
    return;
  }
  ctx.io.out(`${what}, the next ${lines.length} fire times in ${zone}${note}:\n${lines.join('')}`);
}

export const schedulesNext: Command = {
  name: 'schedules next',
  summary:
    "the next fire times of a schedule (or of a rule not saved), ISO 8601 in the schedule's zone with its offset",
  args: [],
  optionalArgs: ['scheduleId'],
  options: {
    ...SCHEDULE_OPTIONS,
    cron: { type: 'string', value: 'PATTERN', description: 'a cron pattern not saved' },
    tz: { type: 'string', value: 'ZONE', description: 'its IANA time zone (default UTC)' },
    every: { type: 'string', value: 'INTERVAL', description: 'an interval from now (15m)' },
    at: { type: 'string', value: 'ISO', description: 'one time' },
    count: { type: 'string', value: 'N', description: 'how many (default 5, at most 1000)' },
  },
  examples: [
    'agentstate schedules next weekly-digest --user alice',
    "agentstate schedules next --cron '0 9 * * 1' --tz Europe/Berlin",
  ],
  run,
};
