import { resolveInDoubt, type InDoubtResolution } from '../../actions/resolve-in-doubt.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json, table } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { operator } from '../shared/operator.js';

/** `in-doubt list`: the calls cut off by a crash that the session's run waits on. */
async function list(ctx: CommandContext): Promise<void> {
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  const calls = (await cli.runtime.getSession(key)).runStatus?.callsInDoubt ?? [];
  if (ctx.json) {
    ctx.io.out(json({ sessionId: key.sessionId, userId: key.userId, callsInDoubt: calls }));
    return;
  }
  if (calls.length === 0) {
    ctx.io.out(`no call of ${key.sessionId} is in doubt\n`);
    return;
  }
  ctx.io.out(
    table(
      ['CALL', 'TOOL', 'RUN', 'AGENT', 'RECONCILE'],
      calls.map((c) => [c.callId, c.toolName, c.runId, c.agent, c.reconcile ?? '-']),
      ctx.painter,
    ),
  );
}

/** The resolution the flags name: exactly one of --retry, --fail, --result JSON. */
function resolutionOf(ctx: CommandContext, callId: string): InDoubtResolution {
  const result = stringFlag(ctx, 'result');
  const chosen = [ctx.flags['retry'] === true, ctx.flags['fail'] === true, result !== undefined];
  if (chosen.filter(Boolean).length !== 1) {
    throw new CliUsageError(
      'give exactly one of --retry, --fail or --result JSON',
      'in-doubt resolve',
    );
  }
  if (ctx.flags['retry'] === true) return { callId, action: 'retry' };
  if (ctx.flags['fail'] === true) return { callId, action: 'fail' };
  try {
    return { callId, action: 'result', result: JSON.parse(result!) as unknown };
  } catch {
    throw new CliUsageError(
      `--result must be JSON, got ${JSON.stringify(result)}`,
      'in-doubt resolve',
    );
  }
}

/** `in-doubt resolve`: the resolution recorded in the session; the app's resume applies it. */
async function resolve(ctx: CommandContext): Promise<void> {
  const callId = ctx.args['callId']!;
  const resolution = resolutionOf(ctx, callId);
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const key = cli.key(ctx.args['sessionId']!);
  await cli.runtime.execute(
    key,
    resolveInDoubt(resolution, { by: operator(), via: 'cli', hold: true }),
  );
  if (ctx.json) {
    ctx.io.out(
      json({ sessionId: key.sessionId, userId: key.userId, callId, action: resolution.action }),
    );
    return;
  }
  ctx.io.out(
    `resolved call ${callId} of ${key.sessionId} (${resolution.action}): recorded; the app's resume (or \`agentstate resume\`) runs the run on\n`,
  );
}

export const inDoubtList: Command = {
  name: 'in-doubt list',
  summary: 'list the tool calls cut off by a crash that the run waits on (onInterrupted: ask)',
  args: ['sessionId'],
  options: {},
  examples: ['agentstate in-doubt list pay-7 --user alice'],
  run: list,
};

export const inDoubtResolve: Command = {
  name: 'in-doubt resolve',
  summary:
    'resolve a call in doubt: --retry, --fail or --result JSON (recorded; the app or `resume` continues the run)',
  args: ['sessionId', 'callId'],
  options: {
    retry: { type: 'boolean', description: 'run the call again, with the same call id' },
    fail: { type: 'boolean', description: 'the model reads that the outcome is unknown' },
    result: {
      type: 'string',
      value: 'JSON',
      description: "the call's result, recorded without running it",
    },
  },
  examples: [
    'agentstate in-doubt resolve pay-7 call_2_0 --result \'{"charge":"ch_1"}\' --user alice',
    'agentstate in-doubt resolve pay-7 call_2_0 --fail --user alice',
  ],
  run: resolve,
};
