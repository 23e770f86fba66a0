import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readDataset } from '../../evals/eval-dataset.js';
import { runEval } from '../../evals/run-eval.js';
import type { Scorer } from '../../evals/scorer.js';
import { budget } from '../../evals/scorers/budget.js';
import { exactOutput } from '../../evals/scorers/exact-output.js';
import { outputMatches } from '../../evals/scorers/output-matches.js';
import { toolCallsMatch } from '../../evals/scorers/tool-calls-match.js';
import { trajectoryMatch } from '../../evals/scorers/trajectory-match.js';
import { agentExport } from '../shared/agent-export.js';
import { CliFailure, CliUsageError, EXIT } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { openCliStore } from '../shared/cli-store.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';
import { namesFlag } from '../shared/eval-flags.js';
import { outFile } from '../shared/out-file.js';
import { AGENT_MODULE_OPTION } from './resume.js';

const COMMAND = 'eval run';

/** The scorers `--scorers` names, each with its default settings. */
const SCORERS = {
  exact: () => exactOutput(),
  regex: () => outputMatches(),
  tools: () => toolCallsMatch(),
  trajectory: () => trajectoryMatch(),
  budget: () => budget({ relative: 2 }),
} satisfies Record<string, () => Scorer>;
type ScorerName = keyof typeof SCORERS;
const SCORER_NAMES = Object.keys(SCORERS) as ScorerName[];

async function run(ctx: CommandContext): Promise<void> {
  const file = ctx.args['file']!;
  const id = stringFlag(ctx, 'id');
  if (id === undefined) throw new CliUsageError('--id <evalId> is required', COMMAND);
  const spec = stringFlag(ctx, 'agent');
  if (spec === undefined) throw new CliUsageError('--agent <module> is required', COMMAND);
  const out = stringFlag(ctx, 'out');
  const path = out === undefined ? undefined : outFile(ctx, out, COMMAND);
  const concurrency = intFlag(ctx, COMMAND, 'concurrency', 1);
  const label = stringFlag(ctx, 'label');
  const names = namesFlag(ctx, COMMAND, 'scorers', SCORER_NAMES, ['exact', 'tools']);
  // The dataset and the agent, read and checked before the store is opened.
  const datasetPath = resolve(ctx.io.cwd, file);
  if (!existsSync(datasetPath)) throw new CliFailure(`<file>: no dataset at ${file}`, EXIT.usage);
  const dataset = await readDataset(datasetPath);
  const agent = await agentExport(ctx, spec, '--agent', COMMAND);
  const cli = await openCliStore(ctx.db, ctx.user, { create: true });
  try {
    const report = await runEval({
      id,
      store: cli.store,
      ...(ctx.user === undefined ? {} : { userId: ctx.user }),
      agent,
      dataset,
      scorers: names.map((n) => SCORERS[n]()),
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(label === undefined ? {} : { label }),
    });
    const text = json(report);
    if (path !== undefined) await writeFile(path, text);
    const { summary } = report;
    const line = `eval ${id}: ${summary.passed}/${summary.rows} row(s) passed, ${summary.failed} failed, ${summary.errored} errored${path === undefined ? '' : `; wrote ${out}`}\n`;
    if (ctx.json) ctx.io.out(path === undefined ? text : json({ path, evalId: id, summary }));
    else if (path === undefined) ctx.io.out(text);
    else ctx.io.out(line);
  } finally {
    await cli.close();
  }
}

export const evalRun: Command = {
  name: 'eval run',
  summary:
    "run an agent over a dataset's rows and score each (persisted: run it again with the same --id to resume)",
  args: ['file'],
  options: {
    agent: { ...AGENT_MODULE_OPTION, description: 'the Agent module to evaluate' },
    export: {
      type: 'string',
      value: 'name',
      description:
        'the export that is the agent (default: the default export, else `agent`, else the one export that is an agent)',
    },
    id: {
      type: 'string',
      value: 'evalId',
      description: 'the eval run’s id in the store; the same id again resumes it',
    },
    out: { type: 'string', value: 'file', description: 'write the report (JSON) here' },
    concurrency: { type: 'string', value: 'N', description: 'rows run at once (default: 4)' },
    label: {
      type: 'string',
      value: 'text',
      description: 'what is evaluated (`baseline`, `prompt v7`)',
    },
    scorers: {
      type: 'string',
      value: SCORER_NAMES.join(','),
      description: 'the scorers (default: exact,tools)',
    },
  },
  examples: [
    'agentstate eval run evals/bills.jsonl --agent ./dist/agent.js --id nightly-42 --out candidate.json',
  ],
  details:
    'Run rows replay the whole agent offline (each tool answers its recorded result), step rows send the recorded request to the agent’s model. The eval run is kept in the store (--db, made when missing): killed half way, the same command goes on without running finished rows again. Exit codes: 0 evaluated (whatever the scores), 2 a bad flag, module or dataset, or an --id started with another dataset, agent or scorers.',
  run,
};
