import type { SessionInfo, SessionStatus } from '../../persistence/session-store.js';
import { SessionStatusSchema } from '../../persistence/session-schemas.js';
import { storeOwners } from '../../persistence/store-owners.js';
import { CliUsageError } from '../cli-errors.js';
import { localDate, statusStyle, table, usd, json, type Cell } from '../cli-format.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../command.js';
import { notePartition } from '../cli-store.js';

const SESSION_STATUSES = SessionStatusSchema.options;

/** Sessions read per page from the store. */
const PAGE = 500;
/** A progress line on stderr every this many sessions. */
const PROGRESS_EVERY = 1000;

function row(s: SessionInfo, allUsers: boolean): Cell[] {
  const waiting =
    s.approvalDeadline === undefined ? '' : `approval by ${localDate(s.approvalDeadline)}`;
  return [
    s.sessionId,
    ...(allUsers ? [s.userId ?? '(anonymous)'] : []),
    { text: s.status, style: statusStyle(s.status) },
    String(s.version),
    String(s.historyLength),
    String(s.usage.turns),
    String(s.usage.inputTokens + s.usage.outputTokens),
    usd(s.usage.costUsd),
    localDate(s.updatedAt),
    waiting,
  ];
}

async function run(ctx: CommandContext): Promise<void> {
  const limit = intFlag(ctx, 'sessions list', 'limit', 1);
  const status = stringFlag(ctx, 'status');
  if (status !== undefined && !(SESSION_STATUSES as readonly string[]).includes(status)) {
    throw new CliUsageError(
      `--status must be one of ${SESSION_STATUSES.join(', ')}, got ${JSON.stringify(status)}`,
      'sessions list',
    );
  }
  const allUsers = ctx.flags['all-users'] === true;
  if (allUsers && ctx.user !== undefined) {
    throw new CliUsageError('--all-users and --user exclude each other', 'sessions list');
  }
  const cli = await ctx.open();
  if (!allUsers) await notePartition(cli, ctx.user, ctx.io);
  const owners = allUsers ? await storeOwners(cli.store.backend) : [{ userId: ctx.user }];
  const sessions: SessionInfo[] = [];
  let reported = 0;
  const progress = (done: boolean) => {
    if (!done && sessions.length - reported < PROGRESS_EVERY) return;
    if (done && reported === 0) return;
    reported = sessions.length;
    const end = ctx.io.stderrIsTTY ? (done ? '\n' : '\r') : '\n';
    ctx.io.err(`listing sessions: ${sessions.length} read${done ? ', done' : ''}${end}`);
  };
  outer: for (const { userId } of owners) {
    let cursor: string | undefined;
    do {
      const want = limit === undefined ? PAGE : Math.min(PAGE, limit - sessions.length);
      const page = await cli.runtime.listSessions({
        userId,
        status: status as SessionStatus | undefined,
        limit: want,
        cursor,
      });
      sessions.push(...page.sessions);
      progress(false);
      cursor = page.nextCursor;
      if (limit !== undefined && sessions.length >= limit) break outer;
    } while (cursor !== undefined);
  }
  progress(true);
  if (ctx.json) {
    ctx.io.out(json(sessions));
    return;
  }
  if (sessions.length === 0) {
    ctx.io.out(
      `no sessions${ctx.user === undefined ? ' (anonymous bucket)' : ` of user ${ctx.user}`}\n`,
    );
    return;
  }
  const header = [
    'SESSION',
    ...(allUsers ? ['USER'] : []),
    'STATUS',
    'VERSION',
    'ITEMS',
    'TURNS',
    'TOKENS',
    'COST',
    'UPDATED',
    'WAITING',
  ];
  const shift = allUsers ? 1 : 0;
  const right = new Set([2, 3, 4, 5, 6].map((i) => i + shift));
  ctx.io.out(
    table(
      header,
      sessions.map((s) => row(s, allUsers)),
      ctx.painter,
      right,
    ),
  );
}

export const sessionsList: Command = {
  name: 'sessions list',
  summary: "a user's sessions in id order, with status, usage and approval waits",
  args: [],
  options: {
    status: {
      type: 'string',
      value: 'S',
      description: `only this status (${SESSION_STATUSES.join(', ')})`,
    },
    limit: { type: 'string', value: 'N', description: 'at most N sessions (default: all)' },
    'all-users': {
      type: 'boolean',
      description: 'every partition: the anonymous bucket and each user',
    },
  },
  examples: [
    'agentstate sessions list --user alice --status active',
    'agentstate sessions list --all-users --json',
  ],
  run,
};
