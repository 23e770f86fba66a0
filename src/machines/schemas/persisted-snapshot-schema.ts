import { z } from 'zod';
import {
  Budget,
  RunContext,
  RunInput,
  RunSummary,
  StandingDecisions,
  UsageTotals,
  count,
} from './run-schemas.js';
import { AnsweredMessages } from './answered-messages-schema.js';

/**
 * zod schemas of the persisted session snapshot, as `getPersistedSnapshot()` writes it for the
 * session machine with its run child and the run's step actors: every field the runtime reads
 * after a restore, and the children a restored state needs (a run in `modelCall` without its
 * `modelStep` child would wait forever). Checked on every load, before an actor is created.
 * Objects are not strict: XState may add fields; only what agentstate relies on is checked.
 */

/** A session's settings that actions change (`SessionConfig`). */
export const SessionConfig = z.lazy(() =>
  z.object({
    model: z.string().optional(),
    systemPrompt: z.string().optional(),
    budget: Budget,
    metadata: z.record(z.string(), z.unknown()),
    task: z.unknown().optional(),
  }),
);

/** The session machine's context (`SessionMachineContext`). */
export const SessionContext = z.lazy(() =>
  z.object({
    sessionId: z.string().min(1),
    userId: z.string().optional(),
    parentId: z.string().optional(),
    config: SessionConfig,
    historyFrom: count,
    runCount: count,
    usage: UsageTotals,
    standingDecisions: StandingDecisions,
    currentRun: RunInput.optional(),
    lastRun: RunSummary.optional(),
    answered: AnsweredMessages.optional(),
  }),
);
const ActorStatus = z.enum(['active', 'done', 'error', 'stopped']);
const ToolCallRef = z.object({ callId: z.string(), name: z.string(), arguments: z.string() });
const stepChild = <S extends string, I extends z.ZodType>(src: S, input: I) =>
  z.object({ src: z.literal(src), snapshot: z.object({ status: ActorStatus, input }) });

const StepChild = z.lazy(() =>
  z.discriminatedUnion('src', [
    stepChild(
      'modelStep',
      z.object({ runId: z.string(), sessionId: z.string(), step: count, turn: count }),
    ),
    stepChild(
      'approvalCheck',
      z.object({
        runId: z.string(),
        step: count,
        calls: z.array(ToolCallRef.extend({ step: count.optional() })),
      }),
    ),
    stepChild(
      'toolCall',
      z.object({
        runId: z.string(),
        step: count,
        call: ToolCallRef,
        rejection: z.object({ message: z.string(), reason: z.string() }).optional(),
        position: count.optional(),
      }),
    ),
    stepChild('durableTimer', z.object({ deadline: z.number() })),
    stepChild(
      'guardrailCheck',
      z.object({ runId: z.string(), step: count, kind: z.enum(['input', 'output']) }),
    ),
  ]),
);
/** A run's step child as its snapshot is checked: what each step's input must hold. */
export type StepChild = z.output<typeof StepChild>;

const RunValue = z.union([
  z.enum([
    'modelCall',
    'inputGuardrails',
    'outputGuardrails',
    'awaitingApproval',
    'tools',
    'interrupted',
    'completed',
    'failed',
    'cancelled',
  ]),
  z.object({ approvals: z.literal('checking') }),
]);

interface RunSnapshotData {
  status: z.output<typeof ActorStatus>;
  value: z.output<typeof RunValue>;
  context: z.output<typeof RunContext>;
  children: Record<string, StepChild | { src: 'subRun'; snapshot: RunSnapshotData }>;
}

/** A sub-agent's run: the run machine again, nested in its parent run's children. */
const SubRunChild = z.lazy(() =>
  z.object({
    src: z.literal('subRun'),
    get snapshot(): z.ZodType<RunSnapshotData> {
      return RunSnapshot;
    },
  }),
);
const RunSnapshot: z.ZodType<RunSnapshotData> = z.lazy(() =>
  z
    .object({
      status: ActorStatus,
      value: RunValue,
      context: RunContext,
      children: z.record(z.string(), z.union([StepChild, SubRunChild])),
    })
    .superRefine((run, ctx) => {
      const children = Object.values(run.children);
      const has = (src: StepChild['src']) => children.some((c) => c.src === src);
      const need = (src: StepChild['src'], state: string) => {
        if (!has(src))
          ctx.addIssue({
            code: 'custom',
            path: ['children'],
            message: `a run in ${state} needs its ${src} child`,
          });
      };
      if (run.status !== 'active') return;
      if (run.value === 'modelCall') need('modelStep', 'modelCall');
      else if (run.value === 'inputGuardrails' || run.value === 'outputGuardrails') {
        need('guardrailCheck', run.value);
      } else if (run.value === 'awaitingApproval') need('durableTimer', 'awaitingApproval');
      else if (typeof run.value === 'object') need('approvalCheck', 'approvals.checking');
      else if (run.value === 'tools') {
        run.context.calls.forEach((call, i) => {
          if (
            !call.done &&
            !(`tool-${call.step}` in run.children) &&
            !(`agent-${call.step}` in run.children)
          ) {
            ctx.addIssue({
              code: 'custom',
              path: ['context', 'calls', i],
              message: `call at step ${call.step} is not done and has no toolCall or subRun child`,
            });
          }
        });
      }
    }),
);
const SessionValue = z.union([
  z.enum(['suspended', 'completed', 'failed', 'deleted']),
  z.object({ active: z.enum(['idle', 'running']) }),
]);

/** A persisted session snapshot: the session machine, its run child and the run's steps. */
export const PersistedSessionSnapshot = z.lazy(() =>
  z
    .object({
      status: ActorStatus,
      value: SessionValue,
      context: SessionContext,
      children: z.object({
        run: z.object({ src: z.literal('run'), snapshot: RunSnapshot }).optional(),
      }),
    })
    .superRefine((session, ctx) => {
      const running = typeof session.value === 'object' && session.value.active === 'running';
      const run = session.children.run;
      if (
        running !== (run !== undefined) ||
        running !== (session.context.currentRun !== undefined)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['children', 'run'],
          message: running
            ? 'a running session needs its run child and currentRun'
            : 'only a running session has a run child or currentRun',
        });
      } else if (run && run.snapshot.context.runId !== session.context.currentRun?.runId) {
        ctx.addIssue({
          code: 'custom',
          path: ['children', 'run', 'snapshot', 'context', 'runId'],
          message: 'the run child is not the current run of the session',
        });
      }
    }),
);
export type PersistedSessionSnapshot = z.output<typeof PersistedSessionSnapshot>;
