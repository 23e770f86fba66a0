import type { SerializedError } from '../errors/agentstate-error.js';
import type { GuardrailResult } from '../errors/guardrail-errors.js';
import type { ToolCallItem, ToolResultItem } from '../items/item.js';
import type { InDoubtRecord } from '../items/in-doubt-record.js';
import type { OperatorDecision } from '../items/in-doubt-record.js';
import type { BudgetLeft } from './budget-left.js';
import type { RunUsage } from './run-usage.js';
import type { SubRunResult, SubRunSpec } from './sub-run-types.js';

/**
 * The named actors the run machine invokes (`modelStep`, `approvalCheck`, `toolCall`,
 * `durableTimer`): the input each gets and the output it answers with. The runtime provides
 * them; every field is plain JSON, since inputs are stored in the run's snapshot.
 */
export interface ModelStepInput {
  runId: string;
  sessionId: string;
  step: number;
  turn: number;
  /** Absent in snapshots written before budgets reached the model step. */
  budgetLeft?: BudgetLeft | undefined;
  /** A sub-agent run's agent path (absent for the session's own run). */
  path?: string[] | undefined;
  /** A sub-agent run's first user message. */
  input?: string | undefined;
  /** The agent the run was handed off to, if any (see `RunMachineContext.activeAgent`). */
  agent?: string | undefined;
  /** The run's `modelSettings` (absent: none). */
  modelSettings?: Record<string, unknown> | undefined;
}

export interface ModelStepOutput {
  text?: string | undefined;
  toolCalls: (ToolCallItem & {
    check: boolean;
    subRun?: SubRunSpec | undefined;
    handoff?: string | undefined;
  })[];
  usage: RunUsage;
  structured?: unknown;
  outputError?: SerializedError | undefined;
  /** History length once this answer's items were added: where its tool results start. */
  historyEnd?: number | undefined;
  /** Results of the input guardrails that ran alongside this (first) model call. */
  guardrails?: GuardrailResult[] | undefined;
  /** The answer is final and its agent has output guardrails: they run next. */
  outputGuardrails?: boolean | undefined;
  /** What the request carried, in a few fields (absent in answers journaled before it). */
  request?: ModelRequestFacts | undefined;
}

/**
 * A model request, compact: where its items are (not the items: bytes per step stay flat), the
 * names of the tools offered and the settings. The inspector rebuilds the whole request from
 * the stored history (or, for a sub-agent run, its input and journal) when it is read.
 */
export interface ModelRequestFacts {
  agent: string;
  /** The system instructions as sent (scrubbed by the agent's `redact`); absent: none. */
  instructions?: string | undefined;
  /**
   * The history positions sent (see `WindowRange`); `from`: where the model starts reading the
   * history (absent: 0). Absent for a sub-agent run's conversation.
   */
  window?:
    { start: number; end: number; pinned?: number; summary?: number; from?: number } | undefined;
  tools: string[];
  model?: string | undefined;
  maxOutputTokens?: number | undefined;
  settings?: Record<string, unknown> | undefined;
  /** What memory across sessions added to the request (`AgentOptions.memory`), if anything. */
  memory?: RequestMemoryFacts | undefined;
}

/** A memory recalled into a model request: which, why (its score) and where it came from. */
export interface RecalledMemoryFact {
  id: string;
  /** Cosine similarity to the newest user message. */
  score: number;
  kind: 'message' | 'fact';
  text: string;
  /** The session it came from. */
  sessionId?: string | undefined;
  resource?: string | undefined;
  /** When it was said or saved: epoch milliseconds. */
  at: number;
}

/**
 * What memory added to a model request: the memories recalled (sent as one system message just
 * before the newest user message, `recalledAt` its place among the request's items), the
 * working memory's version shown in the instructions, and what embedding cost (already counted
 * in the step's usage).
 */
export interface RequestMemoryFacts {
  recalled?: RecalledMemoryFact[] | undefined;
  recalledAt?: number | undefined;
  workingMemory?: { version: number } | undefined;
  embedding?: { model: string; inputTokens: number; costUsd?: number | undefined } | undefined;
}

export interface ApprovalCheckInput {
  runId: string;
  step: number;
  /** `step` is the call's own journal step: it tells calls apart when call ids repeat. */
  calls: { callId: string; name: string; arguments: string; step?: number | undefined }[];
  /** A sub-agent run's agent path (absent for the session's own run). */
  path?: string[] | undefined;
  /** The agent the run was handed off to, if any. */
  agent?: string | undefined;
}

export interface ApprovalCheckOutput {
  decisions: {
    callId: string;
    /** The call's journal step (absent in decisions journaled by agentstate 0.1). */
    step?: number | undefined;
    needsApproval: boolean;
    deadline?: number | undefined;
    /** The permission policy's decision (absent without a policy). */
    permission?: 'allow' | 'ask' | 'deny' | undefined;
    denyReason?: string | undefined;
  }[];
}

export interface ToolCallInput {
  runId: string;
  step: number;
  call: { callId: string; name: string; arguments: string };
  /** Set when the call was rejected: the model is shown this instead of running the tool. */
  rejection?: { message: string; reason: string } | undefined;
  /** History position of the result (see `RunMachineContext.resultsAt`). */
  position?: number | undefined;
  /** A sub-agent run's agent path (absent for the session's own run). */
  path?: string[] | undefined;
  /** The agent the run was handed off to, if any. */
  agent?: string | undefined;
  /** Set for a sub-agent call whose child run ended: the result is built from it. */
  subResult?: (SubRunResult & { failParent?: boolean | undefined }) | undefined;
  /** The approval decision on a call that needed one (for telemetry). */
  approval?: { decision: 'approved' | 'rejected'; reason?: string | undefined } | undefined;
  /** An operator's resolution of this call in doubt (`onInterrupted: 'ask'`). */
  inDoubt?: OperatorDecision | undefined;
}

export interface ToolCallOutput {
  callId: string;
  isError: boolean;
  /** The result item, journaled so a replay can still place it in the history. */
  result?: ToolResultItem | undefined;
  /** Set when the call was in doubt after a crash: how it was resolved. */
  inDoubt?: InDoubtRecord | undefined;
  /** Set when the call was rejected (a human, a deadline or a permission policy): it did not run. */
  rejected?: true | undefined;
  /**
   * Set (never journaled) when the call is in doubt and its tool asks an operator: the run
   * pauses; `reconcile` is what the tool's `reconcile` answered, if it has one.
   */
  ask?: { reconcile?: 'unknown' | 'error' | undefined } | undefined;
}

export interface DurableTimerInput {
  deadline: number;
}

export interface DurableTimerOutput {
  firedAt: number;
}
