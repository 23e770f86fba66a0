import { assign, sendTo, setup } from 'xstate';
import { builtOnce } from './built-once.js';
import { withAnswered } from './answered-messages.js';
import { RUN_MACHINE_VERSION, runMachine } from './run-machine.js';
import {
  addRunUsage,
  emptyTotals,
  type SessionEvent,
  type SessionMachineContext,
  type SessionMachineInput,
} from './session-types.js';

/** Version of the session and run machine definitions, stored beside every snapshot. */
export const MACHINE_VERSION = `session-1/run-${RUN_MACHINE_VERSION}`;

/**
 * A session's lifecycle. `active.running` invokes the run machine as the child `run`, so the
 * persisted session snapshot nests the run's snapshot (and its in-flight step actors).
 * Transitions the current state does not list are refused by the runtime before anything is
 * saved (`snapshot.can(event)`). Built at its first use (`builtOnce`), as the run machine.
 */
export const sessionMachine = builtOnce(() =>
  setup({
    types: {
      context: {} as SessionMachineContext,
      input: {} as SessionMachineInput,
      events: {} as SessionEvent,
    },
    actors: { run: runMachine() },
    actions: {
      forwardToRun: sendTo('run', ({ event }) => event),
      configure: assign({
        config: ({ context, event }) =>
          event.type === 'CONFIGURE' ? { ...context.config, ...event.patch } : context.config,
      }),
    },
  }).createMachine({
    id: 'session',
    context: ({ input }) => ({
      sessionId: input.sessionId,
      userId: input.userId,
      parentId: input.parentId,
      config: { budget: {}, metadata: {}, ...input.config },
      historyFrom: input.historyFrom ?? 0,
      runCount: 0,
      usage: input.usage ?? emptyTotals(),
      standingDecisions: input.standingDecisions ?? {},
    }),
    initial: 'active',
    on: { DELETE: { target: '.deleted' } },
    states: {
      active: {
        initial: 'idle',
        on: {
          CONFIGURE: { actions: 'configure' },
        },
        states: {
          idle: {
            on: {
              SEND_MESSAGE: {
                target: 'running',
                actions: assign({
                  currentRun: ({ context, event }) => ({
                    ...event.run,
                    standingDecisions: context.standingDecisions,
                  }),
                  runCount: ({ context }) => context.runCount + 1,
                  answered: ({ context, event }) =>
                    event.messageId === undefined
                      ? context.answered
                      : withAnswered(context.answered, event.messageId, event.run.runId),
                  // The last run's sub-agent summaries were reported with its result; they are
                  // not carried through every step of the next run.
                  lastRun: ({ context }) => {
                    if (!context.lastRun?.subRuns) return context.lastRun;
                    const { subRuns: _reported, ...summary } = context.lastRun;
                    return summary;
                  },
                }),
              },
              CLEAR: { actions: assign({ historyFrom: ({ event }) => event.historyFrom }) },
              SUSPEND: { target: '#session.suspended' },
              COMPLETE: { target: '#session.completed' },
              FAIL: { target: '#session.failed' },
            },
          },
          running: {
            invoke: {
              id: 'run',
              src: 'run',
              input: ({ context }) => context.currentRun!,
              onDone: {
                target: 'idle',
                actions: assign(({ context, event }) => {
                  const { newDecisions, ...summary } = event.output;
                  return {
                    currentRun: undefined,
                    lastRun: summary,
                    standingDecisions: { ...context.standingDecisions, ...newDecisions },
                    usage: addRunUsage(context.usage, summary.turn, summary.usage),
                  };
                }),
              },
            },
            on: {
              APPROVE: { actions: 'forwardToRun' },
              REJECT: { actions: 'forwardToRun' },
              RESOLVE_IN_DOUBT: { actions: 'forwardToRun' },
              CONTINUE: { actions: 'forwardToRun' },
              CANCEL: { actions: 'forwardToRun' },
            },
          },
        },
      },
      suspended: {
        on: {
          RESUME: { target: 'active' },
          CONFIGURE: { actions: 'configure' },
        },
      },
      completed: {},
      failed: {
        on: { RESUME: { target: 'active' } },
      },
      deleted: { type: 'final' },
    },
  }),
);

export type SessionMachine = ReturnType<typeof sessionMachine>;
