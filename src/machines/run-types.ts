import type { z } from 'zod';
import type { SerializedError } from '../errors/agentstate-error.js';
import type { GuardrailResult } from '../errors/guardrail-errors.js';
import type { RunBudget } from './budget-left.js';
import type { RunUsage } from './run-usage.js';
import type { StepStart } from './step-starts.js';
import type { SubRunResult, SubRunSpec, SubRunSummary } from './sub-run-types.js';
import type { OperatorDecision } from '../items/in-doubt-record.js';
import type * as Schema from './schemas/run-schemas.js';

/**
 * The run machine's own types: its input, context, output and events, and the state of a
 * turn's tool calls. Usage, budgets, agent paths, sub-agent runs and the step actors' inputs
 * and outputs have files of their own.
 */

/** A standing decision on a tool: approve or reject its calls without asking. */
export type StandingDecision = z.output<typeof Schema.StandingDecisions>[string];

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
  /**
   * Set when the call is in doubt after a crash and its tool asks an operator
   * (`onInterrupted: 'ask'`): waiting while `resolved` is absent (the run pauses, interruption
   * `in_doubt`), then run on with the operator's resolution.
   */
  inDoubt?: CallInDoubt | undefined;
}

/** A call in doubt that waits for (or got) an operator's resolution. */
export interface CallInDoubt {
  /** What the tool's `reconcile` answered before the run paused, if it has one. */
  reconcile?: 'unknown' | 'error' | undefined;
  /** The operator's resolution, once given (`result`: plain JSON, with action `'result'`). */
  resolved?: OperatorDecision | undefined;
}

/**
 * Why a run stands still: waiting for an approval, out of budget or turns, its model call
 * failed (`error`; the error is in the run's context and on the result), or a tool call cut
 * off by a crash waits for an operator (`in_doubt`). Each one can be resumed or cancelled.
 */
export type InterruptionReason = z.output<typeof Schema.InterruptionReason>;

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
  /**
   * What defined the run when it started, short key -> hash (`DefinitionFingerprint` as
   * `storedDefinition` writes it):
   * a resume by a differently defined agent is refused unless it declares them compatible.
   * Absent in runs started before agentstate recorded it (they resume unchecked).
   */
  definition?: Record<string, string> | undefined;
}

/** A W3C trace context, as plain JSON. */
export type TraceCarrier = z.output<typeof Schema.TraceCarrier>;

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
   * Decisions (or resolutions of calls in doubt) were recorded with `hold` (by the command
   * line, which cannot run the tools): the run stays paused until a CONTINUE (the app's
   * resume) lets the calls run.
   */
  held?: boolean | undefined;
  /**
   * When each step of the current turn started and how often it was restarted after a
   * restore (by step number; cleared when a model step ends), so a journal entry records both.
   */
  stepStarts?: Record<string, StepStart> | undefined;
}

export type RunFinalStatus = z.output<typeof Schema.RunFinalStatus>;

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
  | {
      /** An operator's resolution of a call in doubt (`onInterrupted: 'ask'`). */
      type: 'RESOLVE_IN_DOUBT';
      callId: string;
      resolution: OperatorDecision;
      runId?: string | undefined;
      /** Record the resolution only: the call waits for a CONTINUE (see `held`). */
      hold?: boolean | undefined;
    }
  | { type: 'CONTINUE'; maxTurns?: number | undefined; budget?: RunBudget | undefined }
  | { type: 'CANCEL' }
  /** A step actor started (again, after a restore: `restarts` counts it); for the journal. */
  | { type: 'STEP_STARTED'; step: number; at: number; restarts: number; retries?: number };
