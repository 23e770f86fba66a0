import { json } from '../shared/cli-format.js';
import type { Command, CommandContext } from '../shared/command.js';
import {
  SCHEDULE_OPTIONS,
  cliActor,
  fireTime,
  withCommandSchedules,
} from '../shared/schedule-command.js';

/** `schedules pause` and `schedules resume`: one change of the schedule, audited `via: 'cli'`. */
function change(verb: 'pause' | 'resume'): Command['run'] {
  return async (ctx: CommandContext) => {
    const id = ctx.args['scheduleId']!;
    const info = await withCommandSchedules(ctx, `schedules ${verb}`, (schedules) =>
      schedules[verb](id, { userId: ctx.user, ...cliActor() }),
    );
    if (ctx.json) {
      ctx.io.out(json(info));
      return;
    }
    ctx.io.out(
      verb === 'pause'
        ? `paused schedule ${id}: no tick fires until it is resumed\n`
        : `resumed schedule ${id}: next ${fireTime(info.nextAt, info.rule)}\n`,
    );
  };
}

export const schedulesPause: Command = {
  name: 'schedules pause',
  summary: 'pause a schedule: no tick fires until it is resumed (a tick being fired finishes)',
  args: ['scheduleId'],
  options: SCHEDULE_OPTIONS,
  examples: ['agentstate schedules pause weekly-digest --user alice'],
  run: change('pause'),
};

export const schedulesResume: Command = {
  name: 'schedules resume',
  summary:
    'resume a paused schedule: its next tick is the first from now (ticks due while it was paused are not caught up)',
  args: ['scheduleId'],
  options: SCHEDULE_OPTIONS,
  examples: ['agentstate schedules resume weekly-digest --user alice'],
  run: change('resume'),
};
