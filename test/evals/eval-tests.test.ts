import { describe, expect, it, test } from 'vitest';
import { evalTests } from '../../src/evals/eval-tests.js';
import { exactOutput } from '../../src/evals/scorers/exact-output.js';
import { toolCallsMatch } from '../../src/evals/scorers/tool-calls-match.js';
import type { EvalRow } from '../../src/evals/eval-row.js';
import { evalRow } from '../helpers/eval-row-fixtures.js';

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
    expect(() => evalTests(rows, { scorers } as never, { test })).toThrow(/"evaluate"/);
    expect(() =>
      evalTests(rows, { scorers: [exactOutput(), exactOutput()], evaluate }, { test }),
    ).toThrow(/two scorers are named "exact"/);
    expect(() => evalTests(rows, { scorers, evaluate }, {} as never)).toThrow(/test runner/);
  });
});
