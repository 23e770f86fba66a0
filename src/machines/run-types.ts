import type { SerializedError } from '../errors/agentstate-error.js';
import type { GuardrailResult } from '../errors/guardrail-errors.js';
import type { ToolCallItem, ToolResultItem } from '../items/item.js';
import { addUsd } from '../validation/usd-amount.js';
import type { StepStart } from './step-starts.js';

/** Tokens and cost of a run so far. Plain JSON. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /**
   * Output tokens spent reasoning (part of `outputTokens`); present once a model call reported
   * them.
   */
  reasoningTokens?: number | undefined;
  /** USD; `undefined` once a model call had no known price (the cost is then unknown). */
  costUsd: number | undefined;
}

export const zeroUsage = (): RunUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  costUsd: 0,
});

export function addUsage(a: RunUsage, b: RunUsage): RunUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(a.reasoningTokens === undefined && b.reasoningTokens === undefined
      ? {}
      : { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) }),
    costUsd:
      a.costUsd === undefined || b.costUsd === undefined ? undefined : addUsd(a.costUsd, b.costUsd),
  };
}

/** Limits left for this run (already net of what the session and user used). */
export interface RunBudget {
  maxTurns?: number | undefined;
  maxTokens?: number | undefined;
  maxCostUsd?: number | undefined;
}

export type StandingDecision = 'approve' | 'reject';

/** A tool call of the current turn and where it stands. */
export interface CallState {
  callId: string;
  name: string;
  arguments: string;
  /** Journal step of this call's execution. */
  step: number;
  /** Whether the tool declares an approval check (`needsApproval` not `false`). */
  check: boolean;
  needsApproval: boolean;
  decision?: 'approved' | 'rejected' | undefined;
  /** Why it was decided: a human, a deadline, a standing decision, or the permission policy. */
  reason?: 'user' | 'timeout' | 'always' | 'denied' | undefined;
  message?: string | undefined;
  /** Epoch ms after which a pending approval is rejected with reason `timeout`. */
  deadline?: number | undefined;
  /** The permission policy's journaled decision, when the session has a policy. */
  permission?: 'allow' | 'ask' | 'deny' | undefined;
  done: boolean;
  /** Set when the tool is a sub-agent: the child run the call starts (see `agent.asTool`). */
  subRun?: SubRunSpec | undefined;
  /** The child run's outcome, once it ended; the call's result is then built from it. */
  subResult?: SubRunResult | undefined;
  /** Set when the tool hands the run off: the agent that takes over once the call is done. */
  handoff?: string | undefined;
}

/**
 * A sub-agent call's child run, fixed by the model step that made the call (and journaled
 * with it), so a replay starts the same child.
 */
export interface SubRunSpec {
  /** The sub-agent's name. */
  name: string;
  /** The child run's ULID. */
  runId: string;
  /** The child's first user message, from the call's validated arguments. */
  input: string;
  maxTurns: number;
  /** Epoch ms. */
  startedAt: number;
  /** The caller's metadata, merged over the parent's in the child's RunContext. */
  metadata?: Record<string, unknown> | undefined;
  /** Explicit overrides of the child's RunContext (inherited from the parent otherwise). */
  userId?: string | undefined;
  sessionId?: string | undefined;
  /** A failed child fails the parent run instead of becoming a tool error item. */
  failParent?: boolean | undefined;
  /** The sub-agent has input guardrails that run before its first model call. */
  inputGuardrails?: boolean | undefined;
}

/** How a child run ended, as its parent's call reads it. */
export interface SubRunResult {
  status: RunFinalStatus;
  output?: string | undefined;
  structured?: unknown;
  error?: SerializedError | undefined;
}

/** One sub-agent run of a run (children of children included), for `RunResult.subRuns`. */
export interface SubRunSummary {
  runId: string;
  /** Names of the agents from the top-level one down to this one. */
  agentPath: string[];
  status: RunFinalStatus;
  turns: number;
  usage: RunUsage;
  output?: string | undefined;
  error?: SerializedError | undefined;
}

/** The agent path of a run: its `agentPath`, or just its agent for a top-level run. */
export const agentPathOf = (run: Pick<RunMachineInput, 'agentName' | 'agentPath'>): string[] =>
  run.agentPath ?? [run.agentName];

/** Whether a step input or run belongs to a sub-agent run (not the session's own run). */
export const isSubRun = (path: readonly string[] | undefined): boolean =>
  path !== undefined && path.length > 1;

/**
 * Why a run stands still: waiting for an approval, out of budget or turns, or its model call
 * failed (`error`; the error is in the run's context and on the result). Each one can be
 * resumed or cancelled.
 */
export type InterruptionReason = 'approval' | 'budget' | 'maxTurns' | 'error';

export interface RunMachineInput {
  runId: string;
  sessionId: string;
  agentName: string;
  maxTurns: number;
  /** Index in the session history where this run's input starts. */
  historyStart: number;
  /** Epoch ms. */
  startedAt: number;
  /** Number of input items at `historyStart`. */
  inputCount: number;
  budget: RunBudget;
  standingDecisions: Record<string, StandingDecision>;
  /**
   * The app's metadata of the run (plain JSON), stored so a resumed run's tools read it from
   * `getRunContext().metadata` in any process. Absent in runs started before it was stored.
   */
  metadata?: Record<string, unknown> | undefined;
  /**
   * A sub-agent run's agents from the top-level one down to its own; absent for a session's
   * own run (whose path is its agent).
   */
  agentPath?: string[] | undefined;
  /** A sub-agent run's first user message (its conversation lives in its journal). */
  input?: string | undefined;
  /**
   * The run's model settings (the agent's merged with the run's; plain JSON, see
   * `ModelSettings`), stored so a resume in any process calls the model with them. Absent in
   * runs started without settings or before they were stored.
   */
  modelSettings?: Record<string, unknown> | undefined;
  /** The agent has input guardrails that run (journaled) before the first model call. */
  inputGuardrails?: boolean | undefined;
  /**
   * The run's W3C trace context (a `traceparent` header value and its `tracestate`), kept so
   * a resumed run continues its trace in any process. Absent when no tracing SDK recorded it.
   */
  trace?: TraceCarrier | undefined;
}

/** A W3C trace context, as plain JSON. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string | undefined;
}

export interface RunMachineContext extends RunMachineInput {
  turn: number;
  /** Next journal step number. */
  step: number;
  usage: RunUsage;
  calls: CallState[];
  output?: string | undefined;
  structured?: unknown;
  /** Why the run failed, or (with interruption `error`) why its model call failed. */
  error?: SerializedError | undefined;
  interruption?: InterruptionReason | undefined;
  /** Set on entering a final state. */
  outcome?: RunFinalStatus | undefined;
  /** `always` decisions taken during this run, merged into the session when it ends. */
  newDecisions: Record<string, StandingDecision>;
  /**
   * History position of the current turn's first tool result: call `i`'s result goes at
   * `resultsAt + i`, in the order the model made the calls. Absent in runs started before
   * agentstate kept that order (their results went in finishing order).
   */
  resultsAt?: number | undefined;
  /** The sub-agent runs that ended, children of children included. */
  subRuns?: SubRunSummary[] | undefined;
  /** The agent the run was handed off to (`handoffs`); absent while it is the run's own. */
  activeAgent?: string | undefined;
  /** Every guardrail result of the run so far (evaluated once each, journaled). */
  guardrails?: GuardrailResult[] | undefined;
  /** The last model answer is final and its agent has output guardrails to run on it. */
  checkOutput?: boolean | undefined;
  /**
   * Decisions were recorded with `hold` (by the command line, which cannot run the tools): the
   * run stays in `awaitingApproval` until a CONTINUE (the app's resume) lets the calls run.
   */
  held?: boolean | undefined;
  /**
   * When each step of the current turn started and how often it was restarted after a
   * restore (by step number; cleared when a model step ends), so a journal entry records both.
   */
  stepStarts?: Record<string, StepStart> | undefined;
}

export type RunFinalStatus = 'completed' | 'failed' | 'cancelled';

export interface RunMachineOutput {
  status: RunFinalStatus;
  runId: string;
  agentName: string;
  maxTurns: number;
  turn: number;
  usage: RunUsage;
  output?: string | undefined;
  structured?: unknown;
  error?: SerializedError | undefined;
  newDecisions: Record<string, StandingDecision>;
  historyStart: number;
  inputCount: number;
  startedAt: number;
  agentPath?: string[] | undefined;
  subRuns?: SubRunSummary[] | undefined;
  activeAgent?: string | undefined;
  guardrails?: GuardrailResult[] | undefined;
}

/** What a run may still spend on its next model call (absent: no limit). */
export interface BudgetLeft {
  /** Input plus output tokens: the next call's output-token limit. */
  tokens?: number | undefined;
  costUsd?: number | undefined;
}

/**
 * What is left of the run's token and cost budget after what the run used so far; `undefined`
 * when the run has neither limit.
 */
export function budgetLeft({
  budget,
  usage,
}: Pick<RunMachineContext, 'budget' | 'usage'>): BudgetLeft | undefined {
  if (budget.maxTokens === undefined && budget.maxCostUsd === undefined) return undefined;
  const left: BudgetLeft = {};
  if (budget.maxTokens !== undefined) {
    left.tokens = Math.max(0, budget.maxTokens - usage.inputTokens - usage.outputTokens);
  }
  if (budget.maxCostUsd !== undefined) {
    left.costUsd = Math.max(0, budget.maxCostUsd - (usage.costUsd ?? 0));
  }
  return left;
}

/** Input and output of the named actors the run machine invokes. */
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
}

export interface ToolCallOutput {
  callId: string;
  isError: boolean;
  /** The result item, journaled so a replay can still place it in the history. */
  result?: ToolResultItem | undefined;
}

export interface DurableTimerInput {
  deadline: number;
}

export interface DurableTimerOutput {
  firedAt: number;
}

export type RunEvent =
  | {
      type: 'APPROVE';
      callId: string;
      always?: boolean | undefined;
      runId?: string | undefined;
      /** Record the decision only: the calls wait for a CONTINUE (see `held`). */
      hold?: boolean | undefined;
    }
  | {
      type: 'REJECT';
      callId: string;
      message?: string | undefined;
      always?: boolean | undefined;
      runId?: string | undefined;
      hold?: boolean | undefined;
    }
  | { type: 'CONTINUE'; maxTurns?: number | undefined; budget?: RunBudget | undefined }
  | { type: 'CANCEL' }
  /** A step actor started (again, after a restore: `restarts` counts it); for the journal. */
  | { type: 'STEP_STARTED'; step: number; at: number; restarts: number };
