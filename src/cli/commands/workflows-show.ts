import {
  fields,
  json,
  localDate,
  oneLine,
  statusStyle,
  table,
  type Cell,
} from '../shared/cli-format.js';
import { POSTGRES_OPTIONS, withCommandStore } from '../shared/command-store.js';
import { intFlag, type Command, type CommandContext } from '../shared/command.js';
import { linkedSessions, type LinkedSession } from '../shared/linked-sessions.js';
import { errorLine } from '../shared/run-status-text.js';
import type { WorkflowInfo } from '../../workflows/workflow-info.js';
import type { SerializedError } from '../../errors/agentstate-error.js';
import { stateText } from '../shared/state-text.js';
import { loadWorkflow } from '../shared/workflow-target.js';
import { pendingCallsTable } from '../shared/pending-calls.js';
import { workflowPath, type WorkflowPathEvent } from '../../workflows/workflow-path.js';

/** How many events of the path `workflows show` prints by default (the latest). */
const PATH_TAIL = 20;

/** One event of the instance's path: when, where it came from, what, and the state it led to. */
/** A stored error on one line (`Name: message [CODE]`), or its JSON when it is not one. */
function errorText(error: unknown): string {
  const e = error as Partial<SerializedError> | null;
  return typeof e?.name === 'string' && typeof e.message === 'string' && typeof e.code === 'string'
    ? errorLine(e as SerializedError)
    : oneLine(JSON.stringify(error), 100);
}

function summary(w: WorkflowInfo, definition: string): [string, Cell][] {
  const status = w.cancelled ? 'cancelled' : w.status;
  const u = w.usage;
  return [
    ['workflow', w.id],
    ['name', w.workflow],
    ['user', w.userId ?? '(anonymous)'],
    ['status', { text: status, style: statusStyle(status) }],
    ['state', stateText(w.value)],
    ['definition', definition],
    ['version', String(w.version)],
    ['created', localDate(w.createdAt)],
    ['updated', localDate(w.updatedAt)],
    ['next timer', localDate(w.nextTimerAt)],
    ...(w.cancelled
      ? [
          [
            'cancelled',
            `${localDate(w.cancelled.at)}${w.cancelled.reason ? `: ${w.cancelled.reason}` : ''}`,
          ] as [string, Cell],
        ]
      : []),
    ['context', oneLine(JSON.stringify(w.context ?? null), 100)],
    ...(w.output === undefined
      ? []
      : [['output', oneLine(JSON.stringify(w.output), 100)] as [string, Cell]]),
    ...(w.error === undefined
      ? []
      : [['error', { text: errorText(w.error), style: 'red' }] as [string, Cell]]),
    [
      'usage',
      `${u.turns} turns, ${u.inputTokens} in / ${u.outputTokens} out tokens (its agent sessions)`,
    ],
  ];
}

function print(
  ctx: CommandContext,
  w: WorkflowInfo,
  definition: string,
  path: WorkflowPathEvent[],
  linked: LinkedSession[],
  tail: number,
): void {
  const p = ctx.painter;
  const section = (title: string) => ctx.io.out(`\n${p.paint(title, 'bold')}\n`);
  ctx.io.out(fields(summary(w, definition), p));
  const timers = [...w.timers].sort((a, b) => a.dueAt - b.dueAt);
  if (timers.length) {
    section('timers');
    ctx.io.out(
      table(
        ['TIMER', 'EVENT', 'DUE'],
        timers.map((t) => [t.id, t.event, localDate(t.dueAt)]),
        p,
      ),
    );
  }
  if (w.steps.length) {
    section('steps in flight');
    ctx.io.out(
      table(
        ['ACTOR', 'STEP', 'STARTED', 'WAITING'],
        w.steps.map((s) => [
          s.actorId,
          s.name,
          localDate(s.startedAt),
          s.inDoubt ? { text: 'in doubt: an operator decides', style: 'yellow' } : '',
        ]),
        p,
      ),
    );
  }
  if (linked.length) {
    section('agent sessions');
    ctx.io.out(
      table(
        ['ACTOR', 'AGENT', 'SESSION', 'STATUS', 'VIA', 'WAITING'],
        linked.map((l) => [
          l.actorId,
          l.agent,
          l.key.sessionId,
          { text: l.status, style: statusStyle(l.status) },
          l.via.join(' > '),
          l.pending.length === 0
            ? ''
            : `${l.pending.length} approval${l.pending.length === 1 ? '' : 's'}`,
        ]),
        p,
      ),
    );
  }
  const pending = linked.flatMap((l) => l.pending.map((c) => ({ ...c, session: l.key.sessionId })));
  if (pending.length) {
    section('pending approvals');
    ctx.io.out(pendingCallsTable(pending, { header: 'SESSION', of: (c) => c.session }, p));
  }
  if (path.length) {
    const shown = path.slice(-tail);
    const events = `${path.length} event${path.length === 1 ? '' : 's'}`;
    section(
      `path (${shown.length === path.length ? events : `last ${shown.length} of ${events}`})`,
    );
    ctx.io.out(
      table(
        ['#', 'AT', 'SOURCE', 'EVENT', 'STATE'],
        shown.map((e) => [String(e.step), localDate(e.at), e.source, e.type, stateText(e.value)]),
        p,
        new Set([0]),
      ),
    );
  }
}

async function run(ctx: CommandContext): Promise<void> {
  const tail = intFlag(ctx, 'workflows show', 'path', 1) ?? PATH_TAIL;
  await withCommandStore(ctx, 'workflows show', async ({ store }) => {
    const target = await loadWorkflow(store, ctx.args['workflowId']!, ctx.user);
    const w = target.info;
    const definition = target.record.machineVersion;
    const path = workflowPath(await store.readRunJournal(target.key, target.host.runId));
    const linked = await linkedSessions(store, target);
    if (ctx.json) {
      ctx.io.out(json({ ...w, definition, path, linkedSessions: linked }));
      return;
    }
    print(ctx, w, definition, path, linked, tail);
  });
}

export const workflowsShow: Command = {
  name: 'workflows show',
  summary:
    'one workflow instance: state, status, context, durable timers and when they fire, steps in flight, its agent sessions and their pending approvals, the path it took with times',
  args: ['workflowId'],
  options: {
    path: {
      type: 'string',
      value: 'N',
      description: `the last N events of the path (default: ${PATH_TAIL}; --json: every one)`,
    },
    ...POSTGRES_OPTIONS,
  },
  examples: [
    'agentstate workflows show order-7 --user alice',
    'agentstate workflows show order-7 --json',
  ],
  run,
};
