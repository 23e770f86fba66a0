import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { appendRows } from '../../evals/eval-dataset.js';
import { rowsFromRun } from '../../evals/rows-from-run.js';
import { agentExport } from '../shared/agent-export.js';
import { CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { notePartition } from '../shared/cli-store.js';
import { stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { stepsFlag } from '../shared/eval-flags.js';
import { AGENT_MODULE_OPTION } from './resume.js';

const COMMAND = 'eval dataset add';

async function run(ctx: CommandContext): Promise<void> {
  const file = ctx.args['file']!;
  const path = resolve(ctx.io.cwd, file);
  const sessionId = stringFlag(ctx, 'session');
  if (sessionId === undefined) throw new CliUsageError('--session <id> is required', COMMAND);
  const steps = stepsFlag(ctx, COMMAND);
  const runId = stringFlag(ctx, 'run');
  const tag = stringFlag(ctx, 'tag');
  const spec = stringFlag(ctx, 'agent');
  if (spec === undefined) throw new CliUsageError('--agent <module> is required', COMMAND);
  const agent = await agentExport(ctx, spec, '--agent', COMMAND);
  const cli = await ctx.open();
  await notePartition(cli, ctx.user, ctx.io);
  const rows = await rowsFromRun({ store: cli.store, agent }, cli.key(sessionId), {
    steps,
    ...(runId === undefined ? {} : { runId }),
    ...(tag === undefined ? {} : { tags: tag.split(',').filter(Boolean) }),
  });
  await mkdir(dirname(path), { recursive: true });
  await appendRows(path, rows);
  if (ctx.json) {
    ctx.io.out(json({ path, added: rows.map((r) => r.id) }));
    return;
  }
  const kinds = steps === 'run' ? 'run row' : 'step row(s)';
  ctx.io.out(
    `added ${rows.length} ${kinds} of session ${sessionId} to ${file}: ${rows.map((r) => r.id).join(', ')}\n`,
  );
}

export const evalDatasetAdd: Command = {
  name: 'eval dataset add',
  summary:
    "append rows built from a stored run to a dataset (JSONL): the whole run, or each model step's exact request",
  args: ['file'],
  options: {
    session: { type: 'string', value: 'id', description: 'the session whose run to take' },
    run: {
      type: 'string',
      value: 'runId',
      description: "the run (default: the session's current, else its last run)",
    },
    steps: {
      type: 'string',
      value: 'run|model-steps|n,...',
      description:
        'one row of the whole run (default), one row per model step, or the model steps numbered',
    },
    agent: {
      ...AGENT_MODULE_OPTION,
      description: "the app's Agent module (its definition pins the rows)",
    },
    export: {
      type: 'string',
      value: 'name',
      description:
        'the export that is the agent (default: the default export, else `agent`, else the one export that is an agent)',
    },
    tag: { type: 'string', value: 't[,t]', description: 'tags on every row added' },
  },
  examples: [
    'agentstate eval dataset add evals/bills.jsonl --session bill-42 --user alice --agent ./dist/agent.js',
    'agentstate eval dataset add evals/steps.jsonl --session bill-42 --steps model-steps --agent ./dist/agent.js',
  ],
  details:
    'The file is created when missing; rows are appended whole (written to a temp file and renamed), and a row whose id the file has already is refused with nothing written. Exit codes: 0 added, 2 a bad flag, module or dataset, 3 no such session or run.',
  run,
};
