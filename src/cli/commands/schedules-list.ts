import { CliUsageError } from '../shared/cli-errors.js';
import { json, table } from '../shared/cli-format.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import {
  SCHEDULE_HEADER,
  SCHEDULE_OPTIONS,
  scheduleCells,
  whoseText,
  withCommandSchedules,
} from '../shared/schedule-command.js';

async function run(ctx: CommandContext): Promise<void> {
  const name = 'schedules list';
  const limit = intFlag(ctx, name, 'limit', 1);
  if (limit !== undefined && limit > 1000) {
    throw new CliUsageError(`--limit must be at most 1000, got ${limit}`, name);
  }
  const cursor = stringFlag(ctx, 'cursor');
  const page = await withCommandSchedules(ctx, name, (schedules) =>
    schedules.list({
      userId: ctx.user,
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    }),
  );
  if (ctx.json) {
    ctx.io.out(json(page));
    return;
  }
  if (page.schedules.length === 0) {
    ctx.io.out(`no schedules ${whoseText(ctx.user)}\n`);
    return;
  }
  ctx.io.out(table(SCHEDULE_HEADER, page.schedules.map(scheduleCells), ctx.painter));
  if (page.nextCursor !== undefined) ctx.io.out(`more: --cursor ${page.nextCursor}\n`);
}

export const schedulesList: Command = {
  name: 'schedules list',
  summary:
    "a user's schedules in id order: rule, zone, next fire time in that zone, paused, runs, the last tick's outcome and run",
  args: [],
  options: {
    ...SCHEDULE_OPTIONS,
    limit: {
      type: 'string',
      value: 'N',
      description: 'at most N schedules (default 50, at most 1000)',
    },
    cursor: { type: 'string', value: 'C', description: 'the page after the one that printed it' },
  },
  examples: [
    'agentstate schedules list --user alice',
    'agentstate schedules list --user alice --json',
  ],
  run,
};
