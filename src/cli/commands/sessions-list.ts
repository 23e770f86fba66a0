import type { SessionInfo, SessionStatus, UsageTotals } from '../../persistence/session-store.js';
import type { RunStatusView } from '../../runs/run-status.js';
import { SessionStatusSchema } from '../../persistence/session-schemas.js';
import { storeOwners } from '../../persistence/kv/store-owners.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { localDate, statusStyle, table, usd, json, type Cell } from '../shared/cli-format.js';
import { runStatusCell, waitingText } from '../shared/run-status-text.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { notePartition, type CliStore } from '../shared/cli-store.js';

const SESSION_STATUSES = SessionStatusSchema.options;

/** Sessions read per page from the store. */
const PAGE = 500;
/** A progress line on stderr every this many sessions. */
const PROGRESS_EVERY = 1000;

/** A listed session with what its run is doing and its usage so far (a paused run's too). */
type ListedSession = SessionInfo & {
  runStatus: RunStatusView | undefined;
  usageSoFar: UsageTotals;
};

/** The listing entry with its run's status, read through the runtime (the partition holds). */
async function withRun(cli: CliStore, info: SessionInfo): Promise<ListedSession> {
  if (info.status === 'deleted') return { ...info, runStatus: undefined, usageSoFar: info.usage };
  const { runStatus, usageSoFar } = await cli.runtime.getSession({
    sessionId: info.sessionId,
    userId: info.userId,
  });
  return { ...info, runStatus, usageSoFar };
}

function row(s: ListedSession, allUsers: boolean): Cell[] {
  const u = s.usageSoFar;
  return [
    s.sessionId,
    ...(allUsers ? [s.userId ?? '(anonymous)'] : []),
    { text: s.status, style: statusStyle(s.status) },
    String(s.version),
    String(s.historyLength),
    String(u.turns),
    String(u.inputTokens + u.outputTokens),
    usd(u.costUsd),
    localDate(s.updatedAt),
    runStatusCell(s.runStatus),
    waitingText(
      s.runStatus?.pendingApprovals ?? 0,
      s.approvalDeadline,
      s.runStatus?.callsInDoubt?.length ?? 0,
      s.runStatus?.held === true,
    ),
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
  const sessions: ListedSession[] = [];
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
      for (const info of page.sessions) sessions.push(await withRun(cli, info));
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
    'RUN',
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
  summary:
    "a user's sessions in id order: status, usage so far, what the run does (running, crashed, paused, failed) and pending approvals",
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
