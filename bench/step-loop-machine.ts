import { assign, fromPromise, setup } from 'xstate';

/**
 * The workflow bench's machine (issue 42): one durable step, `increment`, invoked again and
 * again until the counter reaches `steps`. The same machine runs hosted by `workflows()` (each
 * step journaled, the snapshot saved after it), in plain in-memory XState (the floor) and, as
 * the same loop of steps, in DBOS Transact (`workflow-dbos-child.ts`).
 */
export const stepLoopMachine = setup({
  types: {
    context: {} as { count: number; steps: number },
    input: {} as { steps: number },
    output: {} as { count: number },
  },
  actors: {
    increment: fromPromise<number, { count: number }>(async ({ input }) => input.count + 1),
  },
  actions: {
    /** Entered the final state (a hook for the bench to stop its clock: nothing by default). */
    finished: () => undefined,
  },
}).createMachine({
  id: 'step-loop',
  context: ({ input }) => ({ count: 0, steps: input.steps }),
  initial: 'working',
  states: {
    working: {
      invoke: {
        src: 'increment',
        input: ({ context }) => ({ count: context.count }),
        onDone: [
          {
            guard: ({ context, event }) => event.output >= context.steps,
            target: 'done',
            actions: assign({ count: ({ event }) => event.output }),
          },
          {
            target: 'working',
            reenter: true,
            actions: assign({ count: ({ event }) => event.output }),
          },
        ],
      },
    },
    done: { type: 'final', entry: 'finished' },
  },
  output: ({ context }) => ({ count: context.count }),
});

/**
 * The `increment` step, calling `onStart` when each run of it starts (the bench records the
 * time, and the bytes its store wrote so far).
 */
export const timedIncrement = (onStart: () => void) =>
  fromPromise<number, { count: number }>(async ({ input }) => {
    onStart();
    return input.count + 1;
  });
