import { z } from 'zod';
import type { SerializedError as SerializedErrorData } from '../../errors/agentstate-error.js';
import { ToolCallItem, ToolResultItem } from '../../items/item.js';

/**
 * zod schemas of the plain-JSON data the run machine keeps and its steps journal (the types
 * are in `run-types.ts` and `session-types.ts`). Stored data is checked with these on read.
 */

export const count = z.number().int().nonnegative();
const amount = z.number().nonnegative();
const epochMs = z.number().int();

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
/** The schema of a stored error (`SerializedError` of `errors/`, declared there once). */
export const SerializedError: z.ZodType<SerializedErrorData> = z.lazy(() =>
  z.object({
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
  }),
);
/** Why a run stands still (`InterruptionReason`). */
export const InterruptionReason = z.enum(['approval', 'budget', 'maxTurns', 'error', 'in_doubt']);

/** An operator's resolution of a call in doubt (`OperatorResolution`; `OperatorDecision`). */
const Operator = z.object({
  action: z.enum(['retry', 'result', 'fail']),
  by: z.string().optional(),
  at: epochMs,
});

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
    metadata: z.record(z.string(), z.json()).optional(),
    /** A sub-agent run's agents, top-level first (absent for a session's own run). */
    agentPath: z.array(z.string().min(1)).min(2).optional(),
    input: z.string().optional(),
    /** Plain JSON (`ModelSettings`); absent in runs without settings or stored before them. */
    modelSettings: z.record(z.string(), z.json()).optional(),
    inputGuardrails: z.boolean().optional(),
    /** The run's W3C trace context (absent when no tracing SDK recorded one). */
    trace: z.object({ traceparent: z.string(), tracestate: z.string().optional() }).optional(),
    /** Part -> short hash (`DefinitionFingerprint`); absent in runs stored before it was kept. */
    definition: z.record(z.string(), z.string()).optional(),
  }),
);

/** One guardrail's verdict, as recorded in the run. */
export const GuardrailResultSchema = z.lazy(() =>
  z.object({
    name: z.string(),
    kind: z.enum(['input', 'output']),
    tripwire: z.boolean(),
    info: z.unknown().optional(),
  }),
);

const RunFinalStatusSchema = z.enum(['completed', 'failed', 'cancelled']);

export const SubRunSpec = z.lazy(() =>
  z.object({
    name: z.string().min(1),
    runId: z.string().min(1),
    input: z.string(),
    maxTurns: z.number().int().positive(),
    startedAt: epochMs,
    metadata: z.record(z.string(), z.json()).optional(),
    userId: z.string().optional(),
    sessionId: z.string().optional(),
    failParent: z.boolean().optional(),
    inputGuardrails: z.boolean().optional(),
    definition: z.record(z.string(), z.string()).optional(),
  }),
);

const SubRunResult = z.lazy(() =>
  z.object({
    status: RunFinalStatusSchema,
    output: z.string().optional(),
    structured: z.unknown().optional(),
    error: SerializedError.optional(),
  }),
);

const SubRunSummary = z.lazy(() =>
  z.object({
    runId: z.string().min(1),
    agentPath: z.array(z.string()),
    status: RunFinalStatusSchema,
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
        resolved: Operator.extend({ result: z.json().optional() }).optional(),
      })
      .optional(),
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
    outcome: RunFinalStatusSchema.optional(),
    newDecisions: StandingDecisions,
    resultsAt: count.optional(),
    subRuns: z.array(SubRunSummary).optional(),
    activeAgent: z.string().min(1).optional(),
    guardrails: z.array(GuardrailResultSchema).optional(),
    checkOutput: z.boolean().optional(),
    held: z.boolean().optional(),
    stepStarts: z
      .record(
        z.string(),
        z.object({
          at: z.number(),
          restarts: z.number().int().nonnegative(),
          retries: z.number().int().positive().optional(),
        }),
      )
      .optional(),
  }),
);

export const RunSummary = z.lazy(() =>
  z.object({
    status: RunFinalStatusSchema,
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
    subRuns: z.array(SubRunSummary).optional(),
    activeAgent: z.string().min(1).optional(),
    guardrails: z.array(GuardrailResultSchema).optional(),
  }),
);

/** What a journaled model step replays. */
export const ModelStepOutput = z.lazy(() =>
  z.object({
    text: z.string().optional(),
    toolCalls: z.array(
      ToolCallItem.unwrap().extend({
        check: z.boolean(),
        subRun: SubRunSpec.optional(),
        handoff: z.string().min(1).optional(),
      }),
    ),
    usage: RunUsage,
    structured: z.unknown().optional(),
    outputError: SerializedError.optional(),
    historyEnd: count.optional(),
    guardrails: z.array(GuardrailResultSchema).optional(),
    outputGuardrails: z.boolean().optional(),
  }),
);

/** What a journaled tool call replays (`result` is absent in entries of agentstate 0.1). */
export const ToolCallOutput = z.lazy(() =>
  z.object({
    callId: z.string(),
    isError: z.boolean(),
    result: ToolResultItem.optional(),
    inDoubt: z
      .object({
        resolution: z.enum(['retried', 'failed', 'reconciled', 'recorded']),
        reconcile: z.enum(['result', 'retry', 'unknown', 'error']).optional(),
        operator: Operator.optional(),
      })
      .optional(),
  }),
);

/** What a journaled approval check replays. */
export const ApprovalCheckOutput = z.lazy(() =>
  z.object({
    decisions: z.array(
      z.object({
        callId: z.string(),
        step: count.optional(),
        needsApproval: z.boolean(),
        deadline: z.number().optional(),
        permission: z.enum(['allow', 'ask', 'deny']).optional(),
        denyReason: z.string().optional(),
      }),
    ),
  }),
);

/** What a journaled guardrail step replays. */
export const GuardrailCheckOutput = z.lazy(() =>
  z.object({
    results: z.array(GuardrailResultSchema),
    tripwire: SerializedError.optional(),
  }),
);

/** The output schema of each kind of journal entry. */
export const StepOutputByKind = {
  model: ModelStepOutput,
  tool: ToolCallOutput,
  approval: ApprovalCheckOutput,
  guardrail: GuardrailCheckOutput,
} as const;
