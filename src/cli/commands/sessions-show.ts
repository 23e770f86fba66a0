import { contentText, type Item } from '../../items/item.js';
import {
  fields,
  json,
  localDate,
  oneLine,
  statusStyle,
  table,
  usd,
  type Cell,
} from '../shared/cli-format.js';
import { inProgress } from '../../runs/run-status.js';
import { CRASHED_HINT, errorLine, runStatusText, runStyle } from '../shared/run-status-text.js';
import { notePartition } from '../shared/cli-store.js';
import type { Command, CommandContext } from '../shared/command.js';
import { pendingCalls, pendingCallsTable } from '../shared/pending-calls.js';

/** How many history items `sessions show` prints at the end. */
const TAIL = 6;

/** One history item on one line: who, and what. */
export function itemLine(item: Item): [string, string] {
  switch (item.type) {
    case 'message':
      return [item.role, contentText(item.content)];
    case 'tool_call':
      return ['tool call', `${item.name}(${item.arguments}) [${item.callId}]`];
    case 'tool_result':
      return [item.isError ? 'tool error' : 'tool result', `${item.name}: ${item.output}`];
    case 'reasoning':
      return ['reasoning', (item.summary ?? []).join(' ')];
    case 'summary':
      return ['summary', item.content];
  }
}

async function run(ctx: CommandContext): Promise<void> {
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  const view = await cli.runtime.getSession(key);
  const { pending, held } = pendingCalls(await cli.store.load(key));
  const from = Math.max(0, view.historyLength - TAIL);
  const tail = await cli.store.readHistory(key, from);
  if (ctx.json) {
    const { run, ...rest } = view;
    const current = run && {
      state: run.state,
      status: view.runStatus?.status,
      runId: run.context.runId,
      interruption: run.context.interruption,
      turns: run.context.turn,
      usage: run.context.usage,
      held: run.context.held === true,
    };
    ctx.io.out(
      json({
        ...rest,
        run: current,
        pendingApprovals: pending,
        historyTail: tail.map((item, i) => ({ position: from + i, item })),
      }),
    );
    return;
  }
  const p = ctx.painter;
  const u = view.usageSoFar;
  const run = view.run;
  const last = view.lastRun;
  const status = view.runStatus;
  const sofar =
    run && status && inProgress(status.status)
      ? ` (${status.usage.inputTokens} in / ${status.usage.outputTokens} out of them in the ${status.status} run)`
      : '';
  ctx.io.out(
    fields(
      [
        ['session', view.sessionId],
        ['user', view.userId ?? '(anonymous)'],
        ['status', { text: view.status, style: statusStyle(view.status) }],
        ['state', view.state],
        ['version', String(view.version)],
        ['created', localDate(view.createdAt)],
        ['updated', localDate(view.updatedAt)],
        ...(view.parentId === undefined
          ? []
          : [['forked from', view.parentId] as [string, string]]),
        ['history', `${view.historyLength} items`],
        [
          'usage',
          `${u.turns} turns, ${u.inputTokens} in / ${u.outputTokens} out tokens, ${usd(u.costUsd)}${sofar}`,
        ],
        [
          'run',
          run && status
            ? {
                text: `${run.context.runId} ${runStatusText(status)}${status.status === 'crashed' ? `: ${CRASHED_HINT}` : ''}${held ? ', decided: waiting for resume' : ''}`,
                style: runStyle(status),
              }
            : 'none',
        ],
        [
          'last run',
          last
            ? `${last.runId} ${last.status}, ${last.turn} turns, started ${localDate(last.startedAt)}`
            : 'none',
        ],
        ...(status?.error === undefined
          ? []
          : [
              [
                run ? 'run error' : 'last error',
                { text: errorLine(status.error), style: 'red' },
              ] as [string, Cell],
            ]),
        ...(last?.output === undefined
          ? []
          : [['last output', oneLine(last.output, 70)] as [string, string]]),
      ],
      p,
    ),
  );
  if (pending.length) {
    ctx.io.out(`\n${p.paint('pending approvals', 'bold')}\n`);
    ctx.io.out(pendingCallsTable(pending, { header: 'RUN', of: (c) => c.runId }, p));
  }
  if (tail.length) {
    ctx.io.out(`\n${p.paint(`history (last ${tail.length} of ${view.historyLength})`, 'bold')}\n`);
    ctx.io.out(
      table(
        ['#', 'WHO', 'WHAT'],
        tail.map((item, i) => {
          const [who, what] = itemLine(item);
          return [String(from + i), who, oneLine(what, 70)];
        }),
        p,
        new Set([0]),
      ),
    );
  }
}

export const sessionsShow: Command = {
  name: 'sessions show',
  summary:
    'one session: state, version, usage so far, the run (running, crashed, paused) and why, pending approvals, last run and its error, history tail',
  args: ['sessionId'],
  options: {},
  examples: [
    'agentstate sessions show conv-42 --user alice',
    'agentstate sessions show conv-42 --json',
  ],
  run,
};
