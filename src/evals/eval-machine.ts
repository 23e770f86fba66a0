import { assign, fromPromise, setup } from 'xstate';
import type { EvalRowResult } from './eval-report.js';

/** What an eval run was started with: checked again when it is resumed. */
export interface EvalRunMeta {
  dataset: { name: string; rows: number; hash: string };
  agent: string;
  fingerprint: Record<string, string>;
  /** Each scorer as `name@version` (`name` without a version). */
  scorers: string[];
  label?: string | undefined;
  startedAt: number;
}

/** The eval run's machine context: counters only (the results are in its step journal). */
export interface EvalMachineContext {
  meta: EvalRunMeta;
  lanes: number;
  /** The next row index of each lane (lane `i` takes rows `i`, `i + lanes`, ...). */
  next: number[];
  done: number;
  passed: number;
  errored: number;
}

/** The workflow name eval runs are hosted under. */
export const EVAL_WORKFLOW = 'agentstate.eval';

/**
 * The machine of an eval run with `lanes` rows at once: a parallel state of `lanes` regions,
 * each evaluating its rows one after the other through the durable step `evalRow` (whose
 * journaled output is the row's result), final once every lane ran out of rows.
 */
export function evalMachine(lanes: number) {
  const base = setup({
    types: {
      context: {} as EvalMachineContext,
      input: {} as { meta: EvalRunMeta; lanes: number },
    },
    actors: {
      evalRow: fromPromise<EvalRowResult, { index: number }>(() => {
        throw new Error('evalRow is provided by runEval');
      }),
    },
  });
  const lane = (i: number) =>
    base.createStateConfig({
      initial: 'next',
      states: {
        next: {
          always: [
            { guard: ({ context }) => context.next[i]! < context.meta.dataset.rows, target: 'row' },
            { target: 'finished' },
          ],
        },
        row: {
          invoke: {
            id: `lane-${i}`,
            src: 'evalRow',
            input: ({ context }) => ({ index: context.next[i]! }),
            onDone: {
              target: 'next',
              actions: assign(({ context, event }) => counted(context, i, event.output)),
            },
            onError: {
              target: 'next',
              actions: assign(({ context }) => counted(context, i, undefined)),
            },
          },
        },
        finished: { type: 'final' },
      },
    });
  return base.createMachine({
    id: EVAL_WORKFLOW,
    context: ({ input }) => ({
      meta: input.meta,
      lanes: input.lanes,
      next: Array.from({ length: input.lanes }, (_, i) => i),
      done: 0,
      passed: 0,
      errored: 0,
    }),
    initial: 'evaluating',
    states: {
      evaluating: {
        type: 'parallel',
        states: Object.fromEntries(Array.from({ length: lanes }, (_, i) => [`lane${i}`, lane(i)])),
        onDone: 'done',
      },
      done: { type: 'final' },
    },
  });
}

function counted(
  context: EvalMachineContext,
  lane: number,
  result: EvalRowResult | undefined,
): Partial<EvalMachineContext> {
  return {
    next: context.next.map((n, j) => (j === lane ? n + context.lanes : n)),
    done: context.done + 1,
    passed: context.passed + (result?.pass ? 1 : 0),
    errored: context.errored + (result?.status === 'scored' ? 0 : 1),
  };
}
