import { json } from '../shared/cli-format.js';
import type { Command, CommandContext } from '../shared/command.js';
import { SCHEDULE_OPTIONS, cliActor, withCommandSchedules } from '../shared/schedule-command.js';

async function run(ctx: CommandContext): Promise<void> {
  const id = ctx.args['scheduleId']!;
  await withCommandSchedules(ctx, 'schedules delete', (schedules) =>
    schedules.delete(id, { userId: ctx.user, ...cliActor() }),
  );
  if (ctx.json) {
    ctx.io.out(json({ id, userId: ctx.user, deleted: true }));
    return;
  }
  ctx.io.out(`deleted schedule ${id}: no more ticks (runs it started stay)\n`);
}

export const schedulesDelete: Command = {
  name: 'schedules delete',
  summary: 'delete a schedule: it fires no more ticks (the runs it started stay)',
  args: ['scheduleId'],
  options: SCHEDULE_OPTIONS,
  examples: ['agentstate schedules delete weekly-digest --user alice'],
  run,
};
