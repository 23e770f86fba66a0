import type { SessionStatus } from '../../persistence/session-store.js';
import { SessionStatusSchema } from '../../persistence/session-schemas.js';
import { instanceIdOf } from '../../workflow-host/instance-key.js';
import type { WorkflowInfo } from '../../workflows/workflow-info.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json, localDate, statusStyle, table, type Cell } from '../shared/cli-format.js';
import { POSTGRES_OPTIONS, withCommandStore } from '../shared/command-store.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { stateText } from '../shared/state-text.js';
import { linkedSessions } from '../shared/linked-sessions.js';
import { loadWorkflow } from '../shared/workflow-target.js';

const STATUSES = SessionStatusSchema.options;

/** Instances read per page from the store. */
const PAGE = 500;

/** A listed instance, with the calls its agent sessions wait on a decision for. */
type ListedWorkflow = WorkflowInfo & { pendingApprovals: number };

/** `cancelled` for a cancelled instance (stored `failed`), else its status. */
const shownStatus = (w: WorkflowInfo) => (w.cancelled ? 'cancelled' : w.status);

/** What it waits on a human for: approvals its agents wait on, steps in doubt. */
function waiting(w: ListedWorkflow): string {
  const inDoubt = w.steps.filter((s) => s.inDoubt).length;
  const n = w.pendingApprovals;
  return [
    n === 0 ? '' : `${n} approval${n === 1 ? '' : 's'}`,
    inDoubt === 0 ? '' : `${inDoubt} in doubt`,
  ]
    .filter(Boolean)
    .join(', ');
}

function row(w: ListedWorkflow, allUsers: boolean): Cell[] {
  return [
    w.id,
    ...(allUsers ? [w.userId ?? '(anonymous)'] : []),
    w.workflow,
    { text: shownStatus(w), style: statusStyle(shownStatus(w)) },
    stateText(w.value),
    localDate(w.updatedAt),
    localDate(w.nextTimerAt),
    waiting(w),
  ];
}

async function run(ctx: CommandContext): Promise<void> {
  const limit = intFlag(ctx, 'workflows list', 'limit', 1);
  const status = stringFlag(ctx, 'status');
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw new CliUsageError(
      `--status must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(status)}`,
      'workflows list',
    );
  }
  const name = stringFlag(ctx, 'workflow');
  const allUsers = ctx.flags['all-users'] === true;
  if (allUsers && ctx.user !== undefined) {
    throw new CliUsageError('--all-users and --user exclude each other', 'workflows list');
  }
  const listed = await withCommandStore(
    ctx,
    'workflows list',
    async ({ store, owners }) => {
      if (allUsers && !owners) {
        throw new CliUsageError('--all-users lists a folder: give --user U', 'workflows list');
      }
      const partitions = allUsers && owners ? await owners() : [{ userId: ctx.user }];
      const found: ListedWorkflow[] = [];
      for (const { userId } of partitions) {
        let cursor: string | undefined;
        do {
          const page = await store.list({
            kind: 'workflow',
            userId,
            status: status as SessionStatus | undefined,
            limit: PAGE,
            cursor,
          });
          for (const info of page.sessions) {
            if (info.workflow === undefined || (name !== undefined && info.workflow !== name)) {
              continue;
            }
            const target = await loadWorkflow(store, instanceIdOf(info.sessionId), userId);
            const linked = await linkedSessions(store, target);
            const pendingApprovals = linked.reduce((n, l) => n + l.pending.length, 0);
            found.push({ ...target.info, pendingApprovals });
            if (limit !== undefined && found.length >= limit) return found;
          }
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      }
      return found;
    },
    { notePartition: !allUsers },
  );
  if (ctx.json) {
    ctx.io.out(json(listed));
    return;
  }
  if (listed.length === 0) {
    const of = name === undefined ? '' : ` of ${name}`;
    const whose = allUsers
      ? ''
      : ctx.user === undefined
        ? ' (anonymous bucket)'
        : ` of user ${ctx.user}`;
    ctx.io.out(`no workflows${of}${whose}\n`);
    return;
  }
  const header = [
    'WORKFLOW',
    ...(allUsers ? ['USER'] : []),
    'NAME',
    'STATUS',
    'STATE',
    'UPDATED',
    'NEXT TIMER',
    'WAITING',
  ];
  ctx.io.out(
    table(
      header,
      listed.map((w) => row(w, allUsers)),
      ctx.painter,
    ),
  );
}

export const workflowsList: Command = {
  name: 'workflows list',
  summary:
    "a user's workflow instances (hosted app machines) in id order: status, state, next durable timer, approvals its agents wait on",
  args: [],
  options: {
    status: {
      type: 'string',
      value: 'S',
      description: `only this status (${STATUSES.join(', ')})`,
    },
    workflow: {
      type: 'string',
      value: 'NAME',
      description: 'only the instances of this workflow',
    },
    limit: { type: 'string', value: 'N', description: 'at most N instances (default: all)' },
    'all-users': {
      type: 'boolean',
      description: 'every partition of the folder: the anonymous bucket and each user',
    },
    ...POSTGRES_OPTIONS,
  },
  examples: [
    'agentstate workflows list --user alice --status active',
    'agentstate workflows list --workflow orders --all-users --json',
  ],
  run,
};
