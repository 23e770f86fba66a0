import { isObject } from '../validation/option-checks.js';
import type { EvalOutcome, EvalRow } from './eval-row.js';
import type { Scorer } from './scorer.js';
import { checkScorers, scoreRow, type RowScores } from './score-row.js';

/** Options of `evalTests`. */
export interface EvalTestsOptions {
  /** The scorers every row must pass. */
  scorers: readonly Scorer[];
  /** What the agent (or the candidate) did for a row: its outcome, as the scorers read it. */
  evaluate: (row: EvalRow, signal: AbortSignal) => EvalOutcome | Promise<EvalOutcome>;
  /** A row's test name. @default its id, then its tags in brackets */
  name?: ((row: EvalRow) => string) | undefined;
  /** Passed to `test` as each test's timeout (ms). @default the test runner's */
  timeoutMs?: number | undefined;
}

/** What a test runner's `expect` must do here (vitest's and Jest's do). */
export type EvalExpect = (
  actual: unknown,
  message?: string,
) => { toEqual(expected: unknown): void };

/** The test runner's functions, passed in (agentstate imports no test runner). */
export interface EvalTestRunner {
  /** Registers a test: vitest's `test` or `it`, Jest's, `node:test`'s. */
  test: (name: string, fn: () => Promise<void>, timeout?: number) => unknown;
  /**
   * With it, a failing row fails through `expect(failures, message).toEqual([])`, so the
   * runner shows the failed scores as a diff; without it, through an Error with the reasons.
   */
  expect?: EvalExpect | undefined;
}

const defaultName = (row: EvalRow): string =>
  row.tags?.length ? `${row.id} [${row.tags.join(', ')}]` : row.id;

/** The failed scores of a row, one line each: `exact: the output "..." is not "..."`. */
function failures({ scores }: RowScores): string[] {
  return Object.entries(scores)
    .filter(([, s]) => !s.pass)
    .map(([name, s]) => `${name}: ${s.reason ?? `scored ${s.score}`}`);
}

/**
 * Registers one test per row of `dataset` with the test runner's `test` (for teams that keep
 * evals as tests): each test evaluates its row, scores it with every scorer, and fails with
 * the reasons of the scores that did not pass.
 * @throws TypeError for a dataset that is not rows, bad scorers, no `evaluate` or `test`.
 * @example
 * evalTests(dataset, { scorers: [exactOutput()], evaluate: (row) => row.recorded }, { test, expect });
 */
export function evalTests(
  dataset: readonly EvalRow[] | { readonly rows: readonly EvalRow[] },
  options: EvalTestsOptions,
  runner: EvalTestRunner,
): void {
  const rows: unknown = Array.isArray(dataset)
    ? dataset
    : (dataset as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) throw new TypeError('evalTests(): dataset must be rows or a dataset');
  if (!isObject(options) || typeof options.evaluate !== 'function') {
    throw new TypeError('evalTests(): option "evaluate" must be a function');
  }
  checkScorers('evalTests()', options.scorers);
  if (!isObject(runner) || typeof runner.test !== 'function') {
    throw new TypeError('evalTests(): the third argument must hold the test runner`s test');
  }
  const name = options.name ?? defaultName;
  for (const row of rows as EvalRow[]) {
    const run = async (): Promise<void> => {
      const signal = new AbortController().signal;
      const outcome = await options.evaluate(row, signal);
      const failed = failures(await scoreRow(options.scorers, { row, outcome, signal }));
      const message = `row "${row.id}" failed:\n${failed.join('\n')}`;
      if (runner.expect) runner.expect(failed, message).toEqual([]);
      else if (failed.length > 0) throw new Error(message);
    };
    runner.test(name(row), run, options.timeoutMs);
  }
}
