import { Agent } from '../agent/agent.js';
import { isObject } from '../validation/option-checks.js';
import { checkRows } from './check-rows.js';
import type { EvalCandidate, EvalTools } from './eval-candidate.js';
import type { EvalOutcome, EvalRow } from './eval-row.js';
import { evaluateRun } from './evaluate-run.js';
import { evaluateStep } from './evaluate-step.js';
import type { Scorer } from './scorer.js';
import { checkScorers, scoreRow, type RowScores } from './score-row.js';

/** Options of `evalTests`. */
export interface EvalTestsOptions {
  /** The scorers every row must pass. */
  scorers: readonly Scorer[];
  /**
   * The agent each row is evaluated against, as `runEval` does it (a `step` row through the
   * seam, a `run` row through the whole agent), with `candidate` and `tools`. Give it or
   * `evaluate`. The rows are checked against it when the tests are registered
   * (`InvalidDatasetError` naming the row).
   */
  agent?: Agent<unknown> | undefined;
  /** What is tried instead of what ran (with `agent`). @default the agent's own */
  candidate?: EvalCandidate | undefined;
  /** How a `run` row's tools answer (with `agent`). @default 'scripted' */
  tools?: EvalTools | undefined;
  /** Instead of `agent`: what was done for a row, its outcome as the scorers read it. */
  evaluate?:
    ((row: EvalRow, signal: AbortSignal) => EvalOutcome | Promise<EvalOutcome>) | undefined;
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

/** How a row is evaluated: the option's own function, or the agent as `runEval` evaluates it. */
function evaluatorOf(
  options: EvalTestsOptions,
): (row: EvalRow, signal: AbortSignal) => EvalOutcome | Promise<EvalOutcome> {
  const { agent, evaluate } = options;
  if ((agent === undefined) === (evaluate === undefined)) {
    throw new TypeError('evalTests(): give exactly one of the options "agent" and "evaluate"');
  }
  if (evaluate !== undefined) {
    if (typeof evaluate !== 'function') {
      throw new TypeError('evalTests(): option "evaluate" must be a function');
    }
    return evaluate;
  }
  if (!(agent instanceof Agent))
    throw new TypeError('evalTests(): option "agent" must be an Agent');
  const candidate = options.candidate ?? {};
  return async (row, signal) =>
    row.kind === 'step'
      ? (await evaluateStep(row, agent, candidate, signal)).outcome
      : evaluateRun(row, agent, candidate, options.tools ?? 'scripted', signal);
}

/**
 * Registers one test per row of `dataset` with the test runner's `test` (for teams that keep
 * evals as tests): each test evaluates its row, scores it with every scorer, and fails with
 * the reasons of the scores that did not pass.
 * @throws TypeError for a dataset that is not rows, bad scorers, neither or both of `agent`
 *   and `evaluate`, no `test`; InvalidDatasetError for a row that does not fit `agent`.
 * @example
 * evalTests(dataset, { agent, scorers: [exactOutput(), toolCallsMatch()] }, { test, expect });
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
  if (!isObject(options)) throw new TypeError('evalTests(): options must be an object');
  const evaluate = evaluatorOf(options);
  if (options.agent) checkRows({ rows: rows as EvalRow[] }, options.agent);
  checkScorers('evalTests()', options.scorers);
  if (!isObject(runner) || typeof runner.test !== 'function') {
    throw new TypeError('evalTests(): the third argument must hold the test runner`s test');
  }
  const name = options.name ?? defaultName;
  for (const row of rows as EvalRow[]) {
    const run = async (): Promise<void> => {
      const signal = new AbortController().signal;
      const outcome = await evaluate(row, signal);
      const failed = failures(await scoreRow(options.scorers, { row, outcome, signal }));
      const message = `row "${row.id}" failed:\n${failed.join('\n')}`;
      if (runner.expect) runner.expect(failed, message).toEqual([]);
      else if (failed.length > 0) throw new Error(message);
    };
    runner.test(name(row), run, options.timeoutMs);
  }
}
