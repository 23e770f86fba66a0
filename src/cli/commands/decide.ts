import { userInfo } from 'node:os';
import { recordDecisions } from '../../actions/record-decisions.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';

/** The operator's login name, for the audit log's `by` (none when the OS has no such user). */
export function operator(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/** `approve` and `reject`: a decision recorded in the session; the app or `resume` runs it. */
function decide(approve: boolean) {
  return async (ctx: CommandContext): Promise<void> => {
    const message = stringFlag(ctx, 'message');
    const always = ctx.flags['always'] === true;
    const cli = await ctx.open();
    await notePartition(cli, ctx.user, ctx.io);
    const key = cli.key(ctx.args['sessionId']!);
    const callId = ctx.args['callId']!;
    await cli.runtime.execute(
      key,
      recordDecisions(
        [
          {
            callId,
            approve,
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
        json({ sessionId: key.sessionId, userId: key.userId, callId, decision: verb, always }),
      );
      return;
    }
    ctx.io.out(
      `${verb} call ${callId} of ${key.sessionId}${always ? ' (always, for this tool)' : ''}: recorded; the app's resume (or \`agentstate resume\`) runs the run on\n`,
    );
  };
}

const always = {
  type: 'boolean' as const,
  description: 'the same decision for every later call of this tool in the session',
};

export const approve: Command = {
  name: 'approve',
  summary: 'approve a pending tool call (recorded; the app or `resume` continues the run)',
  args: ['sessionId', 'callId'],
  options: { always },
  examples: ['agentstate approve conv-42 call_3_0 --user alice'],
  run: decide(true),
};

export const reject: Command = {
  name: 'reject',
  summary: 'reject a pending tool call; the model reads --message instead of a result',
  args: ['sessionId', 'callId'],
  options: {
    message: { type: 'string', value: 'M', description: 'what the model is told' },
    always,
  },
  examples: ['agentstate reject conv-42 call_3_0 --message "not on a Friday" --user alice'],
  run: decide(false),
};
