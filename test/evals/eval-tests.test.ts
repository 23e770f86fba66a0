import { describe, expect, it, test } from 'vitest';
import { evalTests } from '../../src/evals/eval-tests.js';
import { exactOutput } from '../../src/evals/scorers/exact-output.js';
import { toolCallsMatch } from '../../src/evals/scorers/tool-calls-match.js';
import type { EvalRow } from '../../src/evals/eval-row.js';
import { evalRow } from '../helpers/eval-row-fixtures.js';
import { Agent } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import { InvalidDatasetError } from '../../src/errors/eval-errors.js';
import { rowsFromRun } from '../../src/evals/rows-from-run.js';
import { billsAgent, billsModel, storeBillSessions } from '../helpers/eval-sessions.js';

const pay = { name: 'pay_bill', arguments: '{"payee":"ACME","amountUsd":120}' };
const rows: EvalRow[] = [
  evalRow({ id: 'paid', tags: ['approval'], recorded: { output: 'Paid.', toolCalls: [pay] } }),
  evalRow({ id: 'declined', recorded: { output: 'I did not pay.', toolCalls: [pay] } }),
];
const scorers = [exactOutput(), toolCallsMatch()];

describe('evalTests with vitest`s own test and expect: one test per row, passing as recorded', () => {
  evalTests({ rows }, { scorers, evaluate: (row) => row.recorded }, { test, expect });
});

describe('evalTests', () => {
  /** The tests `evalTests` registers, by name, instead of the runner's. */
  const registered = (evaluate: (row: EvalRow) => EvalRow['recorded'], withExpect: boolean) => {
    const tests = new Map<string, () => Promise<void>>();
    evalTests(
      rows,
      { scorers, evaluate, timeoutMs: 5000 },
      {
        test: (name, fn, timeout) => {
          expect(timeout).toBe(5000);
          tests.set(name, fn);
        },
        ...(withExpect ? { expect } : {}),
      },
    );
    return tests;
  };
  /** An agent that pays nothing and says it paid. */
  const worse = (row: EvalRow) => ({ ...row.recorded, output: 'Paid.', toolCalls: [] });

  it('names each test after its row (tags in brackets); a failing row fails with its scores` reasons', async () => {
    const tests = registered(worse, false);
    expect([...tests.keys()]).toEqual(['paid [approval]', 'declined']);
    await expect(tests.get('declined')!()).rejects.toThrow(
      'row "declined" failed:\nexact: the output "Paid." is not "I did not pay."\ntools: 0 of 1 calls match in order: missing pay_bill {"payee":"ACME","amountUsd":120}',
    );
    await expect(tests.get('paid [approval]')!()).rejects.toThrow(/^row "paid" failed:\ntools: /);
  });

  it('with the runner`s expect, the failed scores are its diff', async () => {
    const tests = registered(worse, true);
    await expect(tests.get('declined')!()).rejects.toThrow(/row "declined" failed/);
    await expect(registered((row) => row.recorded, true).get('declined')!()).resolves.toBe(
      undefined,
    );
  });

  it('bad arguments are TypeErrors', () => {
    const evaluate = (row: EvalRow) => row.recorded;
    expect(() => evalTests('rows' as never, { scorers, evaluate }, { test })).toThrow(
      /dataset must be/,
    );
    expect(() => evalTests(rows, { scorers }, { test })).toThrow(/"agent" and "evaluate"/);
    expect(() =>
      evalTests(rows, { scorers: [exactOutput(), exactOutput()], evaluate }, { test }),
    ).toThrow(/two scorers are named "exact"/);
    expect(() => evalTests(rows, { scorers, evaluate }, {} as never)).toThrow(/test runner/);
  });
});

describe('evalTests with an agent: rows from stored runs evaluated as runEval does', async () => {
  const store = new MemorySessionStore();
  await storeBillSessions(store, 'alice');
  const stored = await Promise.all(
    ['bill-01', 'bill-05'].map((sessionId) =>
      rowsFromRun({ store, agent: billsAgent() }, { sessionId, userId: 'alice' }, { steps: 'run' }),
    ),
  );
  const steps = await rowsFromRun(
    { store, agent: billsAgent() },
    { sessionId: 'bill-02', userId: 'alice' },
    { steps: 'model-steps' },
  );
  const billRows = [...stored.flat(), ...steps];

  // The agent as it ran passes every row, the whole runs and the seams.
  evalTests(billRows, { agent: billsAgent(), scorers }, { test, expect });

  it('a worse candidate fails the rows it changes, with the reasons', async () => {
    const tests = new Map<string, () => Promise<void>>();
    evalTests(
      billRows,
      { agent: billsAgent(), candidate: { model: billsModel({ careless: true }) }, scorers },
      { test: (name, fn) => tests.set(name, fn) },
    );
    expect(tests.size).toBe(billRows.length);
    const outcomes = await Promise.all(
      [...tests].map(([name, fn]) =>
        fn().then(
          () => `${name}: pass`,
          () => `${name}: fail`,
        ),
      ),
    );
    // The careless model pays $1 more on bills under $50 (bill-01, and bill-02's first step,
    // where it asks to pay), and only there: bill-05 ($75) and bill-02's answer still pass.
    const verdicts = outcomes.map((o) => o.replace(/-[0-9A-Z]{26}/, ''));
    expect(verdicts).toEqual([
      'bill-01: fail',
      'bill-05: pass',
      'bill-02-s0: fail',
      'bill-02-s3: pass',
    ]);
  });

  it('rows that do not fit the agent are refused when registered, naming the row', () => {
    const other = new Agent({ name: 'other', model: billsModel() });
    expect(() => evalTests(billRows, { agent: other, scorers }, { test })).toThrow(
      InvalidDatasetError,
    );
    expect(() =>
      evalTests(billRows, { agent: other, scorers, evaluate: (row) => row.recorded }, { test }),
    ).toThrow(/exactly one of the options "agent" and "evaluate"/);
  });
});
