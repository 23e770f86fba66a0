/**
 * Child process of the eval run's crash test:
 *   node eval-crash-child.js <folder> <first|second>
 * runs the eval `crash-eval` of ten step rows (bills) on the LevelDB store in `<folder>/db`,
 * two rows at once, with a candidate model that appends each row it is asked about to
 * `<folder>/ledger` (`<mode> <row id>`). `first` prints `kill-me` at the model's seventh call
 * and waits there for the SIGKILL. `second` first prints the rows the store holds results of
 * (`journaled <json>`), then runs the same eval again with its clock two minutes ahead (the
 * killed process's lease has lapsed) and prints `report <json>`.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { parseDataset } from '../../src/evals/eval-dataset.js';
import type { EvalRow } from '../../src/evals/eval-row.js';
import { readEvalReport } from '../../src/evals/eval-runs.js';
import { runEval } from '../../src/evals/run-eval.js';
import type { Model, ModelRequest } from '../../src/models/model.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { bills } from '../../examples/agents/bills.js';

const [folder = '', mode = 'first'] = process.argv.slice(2);
const write = (line: string): void => void process.stdout.write(`${line}\n`);

function row(i: number): EvalRow {
  return {
    format: 'agentstate-eval-row',
    version: 1,
    id: `row-${i}`,
    agent: 'bills',
    fingerprint: {},
    kind: 'step',
    request: { items: [{ type: 'message', role: 'user', content: `row-${i}` }], tools: [] },
    recorded: {
      status: 'completed',
      output: `answer row-${i}`,
      toolCalls: [],
      trajectory: [],
      turns: 1,
      usage: { inputTokens: 1, outputTokens: 1 },
    },
  };
}

const dataset = parseDataset(
  Array.from({ length: 10 }, (_, i) => JSON.stringify(row(i))).join('\n'),
  { name: 'crash' },
);

let calls = 0;
/** The row a request is about: its one user message's text. */
function rowOf(request: ModelRequest): string {
  const last = request.items.at(-1);
  return last?.type === 'message' && typeof last.content === 'string' ? last.content : '?';
}

const answers = new ScriptedModel((request) => ({ text: `answer ${rowOf(request)}` }));
const model: Model = {
  name: 'ledger',
  provider: 'scripted',
  price: { inputPerMillion: 0, outputPerMillion: 0 },
  async generate(request, options) {
    const rowId = rowOf(request);
    appendFileSync(join(folder, 'ledger'), `${mode} ${rowId}\n`);
    calls += 1;
    if (mode === 'first' && calls === 7) {
      write('kill-me');
      await new Promise(() => undefined);
    }
    return answers.generate(request, options);
  },
  stream: (request, options) => answers.stream(request, options),
};

const AHEAD_MS = 120_000;
const clock: Clock =
  mode === 'second'
    ? {
        now: () => systemClock.now() + AHEAD_MS,
        sleepUntil: (at, signal) => systemClock.sleepUntil(at - AHEAD_MS, signal),
      }
    : systemClock;

const store = await LevelSessionStore.open({ path: join(folder, 'db'), clock });
const options = {
  id: 'crash-eval',
  store,
  agent: bills,
  dataset,
  scorers: [
    {
      name: 'recorded',
      score: ({ row: r, outcome }: { row: EvalRow; outcome: { output?: string | undefined } }) => {
        const pass = outcome.output === r.recorded.output;
        return { score: pass ? 1 : 0, pass };
      },
    },
  ],
  candidate: { model },
  concurrency: 2,
  clock,
};
if (mode === 'second') {
  const partial = await readEvalReport(store, 'crash-eval', { partial: true });
  write(`journaled ${JSON.stringify(partial.rows.map((r) => r.rowId))}`);
}
const report = await runEval(options);
write(`report ${JSON.stringify(report)}`);
await store.close();
