import type { ActorLogic } from 'xstate';
import type { AnyActorSystem } from '../actors/journaled-step.js';
import type { SerializedError } from '../errors/agentstate-error.js';
import type { RunInput } from '../items/item.js';
import type { InterruptionReason } from '../machines/run-types.js';
import type { RunUsage } from '../machines/run-usage.js';
import type { SubRunSummary } from '../machines/sub-run-types.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { ApprovalDecision, Interruption } from '../runs/run-state.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import type { RunStreamEvent } from './run-stream.js';

/** Input of an agent actor: the run's input and where its session lives. */
export interface AgentActorInput {
  input: RunInput;
  /** The session the run goes in (created if new). @default a new ULID per actor */
  sessionId?: string | undefined;
  userId?: string | undefined;
  /** App metadata the run's tools read from `getRunContext().metadata` (plain JSON). */
  metadata?: Record<string, unknown> | undefined;
}

/** The output of an agent actor: its run's outcome, plain JSON. */
export interface AgentActorOutput {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  output: unknown;
  turns: number;
  usage: RunUsage;
  subRuns: SubRunSummary[];
  lastAgent: string;
}

/** Events an agent actor takes: decisions on its pending calls, continue, cancel. */
export type AgentActorEvent =
  | { type: 'agent.approve'; callId: string; always?: boolean; runId?: string }
  | { type: 'agent.reject'; callId: string; message?: string; always?: boolean; runId?: string }
  | { type: 'agent.continue' }
  | { type: 'agent.cancel' };

/**
 * Events it emits: the stream events of the runs it executes, as `agent.stream()` yields them
 * (`actor.on('approval_requested', ...)`); `run_finished` each time its run ends or pauses.
 */
export type AgentActorEmitted = RunStreamEvent<unknown>;

/**
 * What an agent actor keeps in its snapshot (plain JSON, persisted inside the app actor's):
 * where the run stands and what it waits for. The run itself (journal, history) lives in the
 * store, so a restored actor picks it up there without repeating a journaled step.
 */
export interface AgentActorContext {
  sessionId: string;
  userId?: string | undefined;
  input: RunInput;
  metadata?: Record<string, unknown> | undefined;
  /** Epoch ms the actor was created: a run of its session that started later is its own. */
  createdAt: number;
  /** `running` while the run executes (or must be picked up after a restore). */
  phase: 'running' | 'awaitingApproval' | 'interrupted';
  runId?: string | undefined;
  interruptionReason?: InterruptionReason | undefined;
  /** The calls waiting for a decision (send `agent.approve` / `agent.reject`). */
  interruptions: Interruption[];
  /** Decisions not yet applied to the stored run. */
  decisions: ApprovalDecision[];
  /** The pending action is a cancel. */
  cancelling?: boolean | undefined;
  error?: SerializedError | undefined;
}

/** The snapshot of an agent actor. */
export type AgentActorSnapshot =
  | { status: 'active'; output: undefined; error: undefined; context: AgentActorContext }
  | { status: 'done'; output: AgentActorOutput; error: undefined; context: AgentActorContext }
  | { status: 'error'; output: undefined; error: unknown; context: AgentActorContext }
  | { status: 'stopped'; output: undefined; error: undefined; context: AgentActorContext };

/** How a run settled an agent actor: done with its output, or paused with what it waits for. */
export type RunSettled =
  | { kind: 'done'; output: AgentActorOutput }
  | {
      kind: 'paused';
      runId: string;
      reason: InterruptionReason | undefined;
      interruptions: Interruption[];
    };

/** The actor logic `agent.asActor()` returns. */
export type AgentActorLogic = ActorLogic<
  AgentActorSnapshot,
  AgentActorEvent,
  AgentActorInput,
  AnyActorSystem,
  AgentActorEmitted
>;

/** What the agent actor needs of its agent. */
export interface AgentActorSource {
  readonly name: string;
  runtimeFor(store: SessionStore): SessionRuntime;
}
