import { setup } from 'xstate';

/** How long every instance of the timer part waits: three days (a durable `after`). */
export const WAIT_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * The workflow bench's waiting machine (issue 42): an order that escalates after three days
 * unless something happens. 10,000 instances of it wait on their timer, hosted by `workflows()`
 * (durable timers, in the store's deadline index) or as plain XState actors held live.
 */
export const timerWaitMachine = setup({
  types: {
    context: {} as { order: number },
    input: {} as { order: number },
  },
  delays: { escalation: WAIT_MS },
  actions: {
    /** The timer fired (a hook for the bench to time it: nothing by default). */
    escalate: () => undefined,
  },
}).createMachine({
  id: 'timer-wait',
  context: ({ input }) => ({ order: input.order }),
  initial: 'waiting',
  states: {
    waiting: { after: { escalation: { target: 'escalated', actions: 'escalate' } } },
    escalated: { type: 'final' },
  },
});
