import { z } from 'zod';
import { Item, UserMessageItem } from '../items/item.js';
import { ReplayFile } from '../models/replay-file.js';

/**
 * One row of an eval dataset, one line of its JSONL file: a whole run of an agent (`run`), or
 * one model step of a run (`step`: the exact request and what followed). Built from a stored run
 * (`source` says which) or written by hand; pinned to the definition fingerprint of the agent
 * that ran it, so a row evaluated against a changed definition says which parts changed.
 */

/** The `format` tag of every row. */
export const EVAL_ROW_FORMAT = 'agentstate-eval-row';
/** The row format version this agentstate writes and reads. */
export const EVAL_ROW_VERSION = 1;

const count = z.number().int().nonnegative();

/** Tokens and cost of a run or a step. */
export const EvalUsage = z.object({
  inputTokens: count,
  outputTokens: count,
  costUsd: z.number().nonnegative().optional(),
});
export type EvalUsage = z.infer<typeof EvalUsage>;

/** One tool call an answer asked for: its name and its arguments (the JSON text). */
export const EvalToolCall = z.object({ name: z.string().min(1), arguments: z.string() });
export type EvalToolCall = z.infer<typeof EvalToolCall>;

/**
 * What a run (or a step) did, recorded or evaluated, in the terms scorers read: the final text
 * (or the step's text), the structured output, the tool calls asked for in order (sub-agent
 * runs' included), the trajectory over the run chart (`trajectoryOf`), turns, usage, and how
 * it ended.
 */
export const EvalOutcome = z.object({
  /** `completed`, `failed`, `cancelled`, or a paused run's state (`awaitingApproval`, ...). */
  status: z.string().min(1),
  output: z.string().optional(),
  structured: z.unknown().optional(),
  toolCalls: z.array(EvalToolCall),
  /** The run chart's transitions the run took, in order (`trajectoryOf`). */
  trajectory: z.array(z.string()),
  turns: count,
  usage: EvalUsage,
  /** Why the run or step failed (a typed error's `code` and message). */
  error: z.object({ code: z.string().optional(), message: z.string() }).optional(),
});
export type EvalOutcome = z.infer<typeof EvalOutcome>;

/** A human's decision on a call that waited for approval, in the order they were asked. */
export const EvalDecision = z.object({
  tool: z.string().min(1),
  decision: z.enum(['approve', 'reject']),
  /** What a rejection tells the model. */
  message: z.string().optional(),
});
export type EvalDecision = z.infer<typeof EvalDecision>;

/**
 * A model request exactly as the runtime sent it (`ModelRequest`, plain JSON): instructions,
 * items, the tools with their schemas, the output schema, model and settings.
 */
export const EvalModelRequest = z.object({
  instructions: z.string().optional(),
  items: z.array(Item),
  tools: z.array(
    z.object({
      name: z.string().min(1),
      description: z.string(),
      parameters: z.record(z.string(), z.unknown()),
    }),
  ),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  model: z.string().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
});
export type EvalModelRequest = z.infer<typeof EvalModelRequest>;

/** What a test expects beyond (or instead of) what was recorded; each part optional. */
export const EvalExpectation = z.object({
  output: z.string().optional(),
  /** A regular expression's source the output must match. */
  outputPattern: z.string().optional(),
  toolCalls: z.array(EvalToolCall.extend({ arguments: z.string().optional() })).optional(),
  trajectory: z.array(z.string()).optional(),
});
export type EvalExpectation = z.infer<typeof EvalExpectation>;

export const EvalRow = z.object({
  format: z.literal(EVAL_ROW_FORMAT),
  version: z.literal(EVAL_ROW_VERSION),
  /** Unique in its dataset. */
  id: z.string().min(1),
  /** The agent the row is for (the run's agent; a step's agent may be one it handed off to). */
  agent: z.string().min(1),
  /** The agent's definition fingerprint when the row was recorded (`definitionFingerprint`). */
  fingerprint: z.record(z.string(), z.string()),
  kind: z.enum(['run', 'step']),
  /** Where the row came from; absent for a row written by hand. */
  source: z
    .object({
      sessionId: z.string().min(1),
      userId: z.string().optional(),
      runId: z.string().min(1),
      /** The model step of a `step` row. */
      step: count.optional(),
      /** Epoch ms the row was taken. */
      capturedAt: count,
    })
    .optional(),
  tags: z.array(z.string()).optional(),
  /** `run`: the run's user messages, in order (the first starts it). */
  input: z.array(UserMessageItem).optional(),
  /** `run`: the approvals decided during the run, in order. */
  decisions: z.array(EvalDecision).optional(),
  /** `run`: the recorded run (its answers and tool results), for scripted tools and replays. */
  replay: ReplayFile.optional(),
  /** `step`: the request as the model saw it. */
  request: EvalModelRequest.optional(),
  /** `step`: the tool results that followed the recorded answer, by call id. */
  after: z
    .array(
      z.object({
        callId: z.string().min(1),
        name: z.string(),
        output: z.string(),
        isError: z.boolean(),
      }),
    )
    .optional(),
  /** What the recorded run (or step) did. */
  recorded: EvalOutcome,
  expected: EvalExpectation.optional(),
});
export type EvalRow = z.infer<typeof EvalRow>;
