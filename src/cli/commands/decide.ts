import { recordDecisions } from '../../actions/record-decisions.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { operator } from '../shared/operator.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';

/** `approve` and `reject`: a decision recorded in the session; the app or `resume` runs it. */
function decide(approve: boolean) {
  return async (ctx: CommandContext): Promise<void> => {
    const message = stringFlag(ctx, 'message');
    const always = ctx.flags['always'] === true;
    const cli = await ctx.open();
    await notePartition(cli, ctx.user, ctx.io);
    const key = cli.key(ctx.args['sessionId']!);
    const callId = ctx.args['callId']!;
    const runId = stringFlag(ctx, 'run');
    await cli.runtime.execute(
      key,
      recordDecisions(
        [
          {
            callId,
            approve,
            ...(runId === undefined ? {} : { runId }),
            ...(always ? { always } : {}),
            ...(message === undefined ? {} : { message }),
          },
        ],
        { by: operator(), via: 'cli' },
      ),
    );
    const verb = approve ? 'approved' : 'rejected';
    if (ctx.json) {
      ctx.io.out(
        json({
          sessionId: key.sessionId,
          userId: key.userId,
          callId,
          ...(runId === undefined ? {} : { runId }),
          decision: verb,
          always,
        }),
      );
      return;
    }
    ctx.io.out(
      `${verb} call ${callId}${runId === undefined ? '' : ` (run ${runId})`} of ${key.sessionId}${always ? ' (always, for this tool)' : ''}: recorded; the app's resume (or \`agentstate resume\`) runs the run on\n`,
    );
  };
}

/** `--run`: the run the call waits in, when several (sub-agents) wait on a call of that id. */
const run = {
  type: 'string' as const,
  value: 'R',
  description:
    'the run the call waits in (sessions show lists it), when sub-agent runs wait on calls of the same id',
};

const always = {
  type: 'boolean' as const,
  description: 'the same decision for every later call of this tool in the session',
};

export const approve: Command = {
  name: 'approve',
  summary: 'approve a pending tool call (recorded; the app or `resume` continues the run)',
  args: ['sessionId', 'callId'],
  options: { run, always },
  examples: [
    'agentstate approve conv-42 call_3_0 --user alice',
    'agentstate approve conv-42 call_1_0 --run 01JD2M3N4P5Q6R7S8T9V0W1X2Y --user alice',
  ],
  run: decide(true),
};

export const reject: Command = {
  name: 'reject',
  summary: 'reject a pending tool call; the model reads --message instead of a result',
  args: ['sessionId', 'callId'],
  options: {
    message: { type: 'string', value: 'M', description: 'what the model is told' },
    run,
    always,
  },
  examples: ['agentstate reject conv-42 call_3_0 --message "not on a Friday" --user alice'],
  run: decide(false),
};
