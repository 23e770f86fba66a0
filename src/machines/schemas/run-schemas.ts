import { z } from 'zod';
import { GuardrailResult } from '../../errors/guardrail-errors.js';
import { OperatorResolution } from '../../items/in-doubt-record.js';

/**
 * zod schemas of the plain-JSON data the run machine keeps, checked on every read (what its
 * steps journal is in `step-output-by-kind.ts`). Each stored shape is defined here once: the
 * machines' types are derived from these (`z.output`) or tied to them by the compiler
 * (`persistence/stored-shapes.ts`).
 */

export const count = z.number().int().nonnegative();
const amount = z.number().nonnegative();
const epochMs = z.number().int();
/**
 * Plain JSON, checked as such on read, typed `unknown` like the app's values it holds (run
 * metadata, model settings, an operator's result): the app's types are not JSON types.
 */
export const plainJson: z.ZodType<unknown> = z.json();

/** Token counts are counts (a model reports no fraction and no 1e308); costs are amounts. */
export const UsageTotals = z.lazy(() =>
  z.object({
    turns: count,
    inputTokens: count,
    outputTokens: count,
    costUsd: amount,
  }),
);
export const RunUsage = z.lazy(() =>
  z.object({
    inputTokens: count,
    outputTokens: count,
    cachedTokens: count,
    /** Absent until a model reported reasoning tokens. */
    reasoningTokens: count.optional(),
    /** Absent for a model without a known price. */
    costUsd: amount.optional(),
  }),
);
export const Budget = z.lazy(() =>
  z.object({
    maxTurns: amount.optional(),
    maxTokens: amount.optional(),
    maxCostUsd: amount.optional(),
  }),
);
export const StandingDecisions = z.record(z.string(), z.enum(['approve', 'reject']));
/**
 * The schema of a stored error (`SerializedError` of `errors/`, declared there and tied to
 * this by the compiler). Not lazy: zod infers a recursive `cause` only from a plain object.
 */
export const SerializedError = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string(),
  status: z.number().int().optional(),
  requestId: z.string().optional(),
  retryable: z.boolean().optional(),
  partialText: z.string().optional(),
  failedStep: z
    .object({
      kind: z.enum(['model', 'tool', 'approval', 'guardrail']),
      name: z.string(),
      callId: z.string().optional(),
      step: z.number().int().nonnegative(),
    })
    .optional(),
  maxRecoveries: z.number().int().nonnegative().optional(),
  get cause() {
    return SerializedError.optional();
  },
});
/** Why a run stands still (`InterruptionReason`). */
export const InterruptionReason = z.enum(['approval', 'budget', 'maxTurns', 'error', 'in_doubt']);

/** A W3C trace context, as plain JSON (`TraceCarrier`). */
export const TraceCarrier = z.lazy(() =>
  z.object({ traceparent: z.string(), tracestate: z.string().optional() }),
);

export const RunInput = z.lazy(() =>
  z.object({
    runId: z.string().min(1),
    sessionId: z.string().min(1),
    agentName: z.string(),
    maxTurns: z.number().int().positive(),
    historyStart: count,
    startedAt: epochMs,
    inputCount: count,
    budget: Budget,
    standingDecisions: StandingDecisions,
    /** Plain JSON; absent in runs stored before run metadata was kept. */
    metadata: z.record(z.string(), plainJson).optional(),
    /** A sub-agent run's agents, top-level first (absent for a session's own run). */
    agentPath: z.array(z.string().min(1)).min(2).optional(),
    input: z.string().optional(),
    /** Plain JSON (`ModelSettings`); absent in runs without settings or stored before them. */
    modelSettings: z.record(z.string(), plainJson).optional(),
    inputGuardrails: z.boolean().optional(),
    /** The run's W3C trace context (absent when no tracing SDK recorded one). */
    trace: TraceCarrier.optional(),
    /** Part -> short hash (`DefinitionFingerprint`); absent in runs stored before it was kept. */
    definition: z.record(z.string(), z.string()).optional(),
  }),
);

/** One guardrail's verdict, as recorded in the run. */
export const GuardrailResultSchema = GuardrailResult;

export const RunFinalStatus = z.enum(['completed', 'failed', 'cancelled']);

/**
 * A sub-agent call's child run, fixed by the model step that made the call (and journaled
 * with it), so a replay starts the same child (`SubRunSpec`).
 */
export const SubRunSpec = z.lazy(() =>
  z.object({
    /** The sub-agent's name. */
    name: z.string().min(1),
    /** The child run's ULID. */
    runId: z.string().min(1),
    /** The child's first user message, from the call's validated arguments. */
    input: z.string(),
    maxTurns: z.number().int().positive(),
    /** Epoch ms. */
    startedAt: epochMs,
    /** The caller's metadata, merged over the parent's in the child's RunContext. */
    metadata: z.record(z.string(), plainJson).optional(),
    /** Explicit overrides of the child's RunContext (inherited from the parent otherwise). */
    userId: z.string().optional(),
    sessionId: z.string().optional(),
    /** A failed child fails the parent run instead of becoming a tool error item. */
    failParent: z.boolean().optional(),
    /** The sub-agent has input guardrails that run before its first model call. */
    inputGuardrails: z.boolean().optional(),
    /** The sub-agent's definition fingerprint when the call was made: the child run's own. */
    definition: z.record(z.string(), z.string()).optional(),
  }),
);

/** How a child run ended, as its parent's call reads it (`SubRunResult`). */
export const SubRunResult = z.lazy(() =>
  z.object({
    status: RunFinalStatus,
    output: z.string().optional(),
    structured: z.unknown().optional(),
    error: SerializedError.optional(),
  }),
);

/** One sub-agent run of a run, children of children included (`SubRunSummary`). */
export const SubRunSummary = z.lazy(() =>
  z.object({
    runId: z.string().min(1),
    /** Names of the agents from the top-level one down to this one. */
    agentPath: z.array(z.string()),
    status: RunFinalStatus,
    turns: count,
    usage: RunUsage,
    output: z.string().optional(),
    error: SerializedError.optional(),
  }),
);

export const CallState = z.lazy(() =>
  z.object({
    callId: z.string(),
    name: z.string(),
    arguments: z.string(),
    step: count,
    check: z.boolean(),
    needsApproval: z.boolean(),
    decision: z.enum(['approved', 'rejected']).optional(),
    reason: z.enum(['user', 'timeout', 'always', 'denied']).optional(),
    message: z.string().optional(),
    deadline: epochMs.optional(),
    permission: z.enum(['allow', 'ask', 'deny']).optional(),
    done: z.boolean(),
    subRun: SubRunSpec.optional(),
    subResult: SubRunResult.optional(),
    handoff: z.string().min(1).optional(),
    inDoubt: z
      .object({
        reconcile: z.enum(['unknown', 'error']).optional(),
        resolved: OperatorResolution.extend({ result: plainJson.optional() }).optional(),
      })
      .optional(),
  }),
);

/** When a step started and how often it started again (`StepStart`). */
export const StepStart = z.lazy(() =>
  z.object({
    at: z.number(),
    restarts: z.number().int().nonnegative(),
    retries: z.number().int().positive().optional(),
  }),
);

export const RunContext = z.lazy(() =>
  RunInput.unwrap().extend({
    turn: count,
    step: count,
    usage: RunUsage,
    calls: z.array(CallState),
    output: z.string().optional(),
    structured: z.unknown().optional(),
    error: SerializedError.optional(),
    interruption: InterruptionReason.optional(),
    outcome: RunFinalStatus.optional(),
    newDecisions: StandingDecisions,
    resultsAt: count.optional(),
    subRuns: z.array(SubRunSummary).optional(),
    activeAgent: z.string().min(1).optional(),
    guardrails: z.array(GuardrailResultSchema).optional(),
    checkOutput: z.boolean().optional(),
    held: z.boolean().optional(),
    stepStarts: z.record(z.string(), StepStart).optional(),
  }),
);

export const RunSummary = z.lazy(() =>
  z.object({
    status: RunFinalStatus,
    runId: z.string().min(1),
    agentName: z.string(),
    maxTurns: z.number().int().positive(),
    turn: count,
    usage: RunUsage,
    output: z.string().optional(),
    structured: z.unknown().optional(),
    error: SerializedError.optional(),
    historyStart: count,
    inputCount: count,
    startedAt: epochMs,
    agentPath: z.array(z.string().min(1)).min(2).optional(),
    subRuns: z.array(SubRunSummary).optional(),
    activeAgent: z.string().min(1).optional(),
    guardrails: z.array(GuardrailResultSchema).optional(),
  }),
);
