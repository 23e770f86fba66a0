import type { AnyActorRef } from 'xstate';
import type { z } from 'zod';
import type { RunContext } from '../core/run-context.js';
import type { InputGuardrail, OutputGuardrail } from '../guardrails/guardrail.js';
import type { Model, ToolSpec } from '../models/model.js';
import type { ModelSettings } from '../models/model-settings.js';
import type { PriceTable } from '../models/pricing.js';
import type { Clock } from '../core/clock.js';
import type { StepKind } from '../core/durability-policy.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import type { AnyTool } from '../tools/tool.js';
import type { HistoryStrategy } from '../context-window/history-strategy.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import type { SessionLog } from './session-log.js';

/** Progress the step actors report while they work (for `agent.stream`). */
/** A sub-agent run's events carry its agent path (top-level agent first). */
type Tagged = { agentPath?: string[] | undefined };

export type StepProgress = Tagged &
  (
    | { type: 'text_delta'; runId: string; delta: string }
    | { type: 'tool_call_started'; runId: string; callId: string; name: string; arguments: string }
    | {
        type: 'tool_call_finished';
        runId: string;
        callId: string;
        name: string;
        output: string;
        isError: boolean;
      }
  );

/** A step's start and restarts, recorded in its journal entry. */
export interface StepTiming {
  startedAt: number;
  restarts: number;
}

/** The journal entry fields of a step's timing (`restarts` only when it was restarted). */
export function timingFields(timing: StepTiming): { startedAt: number; restarts?: number } {
  return timing.restarts
    ? { startedAt: timing.startedAt, restarts: timing.restarts }
    : {
        startedAt: timing.startedAt,
      };
}

/** What the steps of one agent's runs need: its model, tools and instructions. */
export interface AgentDeps {
  agentName: string;
  model: Model;
  tools: ReadonlyMap<string, AnyTool>;
  toolSpecs: ToolSpec[];
  /** Resolved instructions (for the session's own agent, the session's system prompt wins). */
  instructions(): string | undefined;
  /** The session's model-name override (the session's own agent only). */
  modelName(): string | undefined;
  /** The agent's context window: which history items each model request carries. */
  history?: HistoryStrategy | undefined;
  outputType?: z.ZodType | undefined;
  outputSchema?: Record<string, unknown> | undefined;
  prices?: PriceTable | undefined;
  /** Approval deadline relative to when the call was checked, in ms. */
  approvalTimeoutMs?: number | undefined;
  /** A sub-agent's own model settings (a session's run carries its settings in its input). */
  modelSettings?: ModelSettings | undefined;
  inputGuardrails?: readonly InputGuardrail[] | undefined;
  outputGuardrails?: readonly OutputGuardrail[] | undefined;
  /** The agent's `redact` option: applied to guardrail info before it is journaled. */
  redact?: ((text: string) => string) | undefined;
  /** The agent's own permission policy (`AgentOptions.permissions`). */
  permissions?: PermissionPolicy | undefined;
}

/** Everything the step actors of one loaded session need; built by the runtime. */
export interface StepDeps extends AgentDeps {
  log: SessionLog;
  /** Where the model starts reading the history (moved by `clearSession`). */
  historyFrom(): number;
  /** The RunContext a run's tools see (a sub-agent run's: its parent's, overridden). */
  contextFor(runId: string): RunContext;
  /**
   * The agent a step works for: `agent` when the run was handed off to it, else the last of a
   * sub-agent run's path, else this session's agent.
   */
  agentFor(path: readonly string[] | undefined, agent?: string): Promise<AgentDeps>;
  /**
   * The permission policies of every call in the session: the runtime's, then the session
   * agent's (a sub-agent's own policy is added for its calls).
   */
  sessionPermissions: readonly PermissionPolicy[];
  /** How deep sub-agent runs may nest (a child of the session's run is 1 deep). */
  maxSubAgentDepth: number;
  /** A new ULID, for a sub-agent call's child run. */
  newRunId(): string;
  clock: Clock;
  /**
   * Aborted when the caller cancels; absent when the caller passed no signal (a step then uses
   * its actor's own signal alone, without the cost of `AbortSignal.any` per step).
   */
  signal: AbortSignal | undefined;
  /**
   * What a step of `kind` waits for before it does fresh work. With the default durability
   * (`'step'`): until every result recorded so far is saved, so the machine never moves past a
   * step whose result is not yet durable and at a crash only the step in flight can have run
   * unjournaled (invariant 1). With `'tools'` only a tool call waits for that (the others wait
   * for the saves already under way); with `'run'` no step does.
   */
  durable(kind: StepKind): Promise<void>;
  /**
   * Notes that a step starts (synchronously, as its actor starts, so the note joins the save
   * that follows anyway): when it first started and how many restores started it again.
   */
  stepStarted(runId: string, step: number): StepTiming;
  /** Set while streaming: receives deltas and tool progress; the model is then streamed. */
  progress?: ((event: StepProgress) => void) | undefined;
  /** Where a session run's input items are in the history (for its input guardrails). */
  inputOf?(runId: string): { historyStart: number; inputCount: number } | undefined;
  /** The session's telemetry: spans and metrics of model and tool calls. */
  observer?: SessionObserver | undefined;
}

/** The actor system a step runs in (shared by every actor of one loaded session). */
export type AnyActorSystem = AnyActorRef['system'];

/**
 * A session's step dependencies, or how to find them from the actor system the step runs in:
 * the latter lets one provided machine serve every loaded session (`provide()` rebuilds the
 * whole machine, too costly per message).
 */
export type StepDepsSource = StepDeps | ((system: AnyActorSystem) => StepDeps);

/** The dependencies of the session whose actor system a step runs in. */
export function stepDepsOf(source: StepDepsSource, system: AnyActorSystem): StepDeps {
  return typeof source === 'function' ? source(system) : source;
}

/** The caller's signal (if any) and the actor's own (aborted when XState stops it) as one. */
export function combinedSignal(deps: StepDeps, actorSignal: AbortSignal): AbortSignal {
  return deps.signal ? AbortSignal.any([deps.signal, actorSignal]) : actorSignal;
}

/** The permission policies of a call of `agent`: the session's, and the agent's own. */
export function permissionsFor(deps: StepDeps, agent: AgentDeps): readonly PermissionPolicy[] {
  const own = agent.permissions;
  return own && !deps.sessionPermissions.includes(own)
    ? [...deps.sessionPermissions, own]
    : deps.sessionPermissions;
}

/** Whether any permission policy covers the calls of `agent` (every call is then checked). */
export function hasPermissions(deps: StepDeps, agent: AgentDeps): boolean {
  return deps.sessionPermissions.length > 0 || agent.permissions !== undefined;
}
