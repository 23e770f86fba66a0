import { z } from 'zod';
import { InDoubtRecord } from '../../items/in-doubt-record.js';
import { ToolCallItem, ToolResultItem } from '../../items/item.js';
import {
  GuardrailResultSchema,
  RunUsage,
  SerializedError,
  SubRunSpec,
  count,
  plainJson,
} from './run-schemas.js';
import { WorkflowEventOutput, WorkflowStepOutput } from './workflow-journal.js';

/**
 * zod schemas of what each kind of journal entry replays (a model answer, a tool call, an
 * approval check, a guardrail step), checked on every read of an entry. The step actors'
 * output types are tied to these by the compiler (`persistence/stored-shapes.ts`).
 */

/** What a model request carried, in a few fields (`ModelRequestFacts`). */
export const ModelRequestFacts = z.lazy(() =>
  z.object({
    agent: z.string(),
    instructions: z.string().optional(),
    window: z
      .object({
        start: z.number(),
        end: z.number(),
        pinned: z.number().optional(),
        summary: z.number().optional(),
        from: z.number().optional(),
      })
      .optional(),
    tools: z.array(z.string()),
    model: z.string().optional(),
    maxOutputTokens: z.number().optional(),
    settings: z.record(z.string(), plainJson).optional(),
    memory: z
      .object({
        recalled: z
          .array(
            z.object({
              id: z.string(),
              score: z.number(),
              kind: z.enum(['message', 'fact']),
              text: z.string(),
              sessionId: z.string().optional(),
              resource: z.string().optional(),
              at: z.number(),
            }),
          )
          .optional(),
        recalledAt: count.optional(),
        workingMemory: z.object({ version: count }).optional(),
        embedding: z
          .object({ model: z.string(), inputTokens: count, costUsd: z.number().optional() })
          .optional(),
      })
      .optional(),
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
    request: ModelRequestFacts.optional(),
  }),
);

/** What a journaled tool call replays (`result` is absent in entries of agentstate 0.1). */
export const ToolCallOutput = z.lazy(() =>
  z.object({
    callId: z.string(),
    isError: z.boolean(),
    result: ToolResultItem.optional(),
    inDoubt: InDoubtRecord.optional(),
    rejected: z.literal(true).optional(),
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
  event: WorkflowEventOutput,
  step: WorkflowStepOutput,
} as const;
