import { json, oneLine, table } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { intFlag, type Command, type CommandContext } from '../shared/command.js';
import { itemLine } from './sessions-show.js';

async function run(ctx: CommandContext): Promise<void> {
  const fromFlag = intFlag(ctx, 'sessions history', 'from', 0);
  const limit = intFlag(ctx, 'sessions history', 'limit', 1);
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  const info = await cli.runtime.getSessionInfo(key);
  const from = Math.min(fromFlag ?? 0, info.historyLength);
  const to = limit === undefined ? info.historyLength : Math.min(info.historyLength, from + limit);
  const items = await cli.store.readHistory(key, from, to);
  if (ctx.json) {
    ctx.io.out(json(items.map((item, i) => ({ position: from + i, item }))));
    return;
  }
  if (items.length === 0) {
    ctx.io.out(`no history items${from > 0 ? ` from ${from}` : ''}\n`);
    return;
  }
  const rows = items.map((item, i) => {
    const [who, what] = itemLine(item);
    return [String(from + i), who, oneLine(what, 100)];
  });
  ctx.io.out(table(['#', 'WHO', 'WHAT'], rows, ctx.painter, new Set([0])));
}

export const sessionsHistory: Command = {
  name: 'sessions history',
  summary: "a session's history items, oldest first, with their positions (for fork --at)",
  args: ['sessionId'],
  options: {
    from: { type: 'string', value: 'N', description: 'start at position N (default 0)' },
    limit: { type: 'string', value: 'N', description: 'at most N items' },
  },
  examples: ['agentstate sessions history conv-42 --user alice --from 10 --limit 5'],
  run,
};
