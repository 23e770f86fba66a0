import type { InspectionEvent } from 'xstate';
import type { JournalEntry, SessionKey } from '../persistence/session-store.js';
import type { SessionLease } from '../persistence/session-leases.js';
import type { SessionRecord } from '../persistence/session-store.js';
import type { Item } from '../items/item.js';
import type { AgentBinding } from '../definition/agent-binding.js';
import type { AgentOptions } from '../definition/agent-options.js';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/new-id.js';
import { runMetadata } from '../runs/run-metadata.js';
import type { RuntimeObservers } from '../session-host/action-observers.js';
import type { SubAgents } from './sub-agents.js';
import { boundAgentDeps } from './bound-agent-deps.js';
import type { AgentDeps } from '../actors/agent-deps.js';
import type { StepProgress } from '../actors/step-progress.js';
import type { HistoryStrategy } from '../context-window/history-strategy.js';
import type { RunContext } from '../core/run-context.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import type { Observability } from '../telemetry/observability.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import { DurabilityPolicy, type Durability } from '../core/durability-policy.js';
import type { SessionLog } from '../actors/session-log.js';
import type { CommitBinding } from './session-committer.js';
import type { RecoveryExhaustedHook } from '../errors/recovery-exhausted-error.js';
import { DEFAULT_MAX_RECOVERIES } from './recovery-limit.js';
import type { RecoveryTurns } from './recovery-turns.js';
import type { RuntimeMemory } from '../memory/runtime-memory.js';

/** How deep sub-agent runs nest by default (`AgentOptions.maxSubAgentDepth`). */
export const DEFAULT_MAX_SUB_AGENT_DEPTH = 5;

/** The session's own agent as bound for an action: its instructions before the session's override. */
export type SessionAgentDeps = Omit<AgentDeps, 'instructions' | 'modelName'> & {
  instructions: string | undefined;
};

/** What a session host needs besides the store and the record. */
export interface HostDeps {
  agent: SessionAgentDeps;
  /** The session agent's context window: which history items each model request carries. */
  history: HistoryStrategy | undefined;
  /** The other agents the action may run (sub-agents, handoffs), bound on first use. */
  subAgents: Pick<SubAgents, 'get'>;
  /** The RunContext of the session's run `runId` (a sub-agent's derives from it). */
  contextFor(runId: string): RunContext;
  clock: Clock;
  /** The runtime's permission policy, then the session agent's. */
  sessionPermissions: readonly PermissionPolicy[];
  /** How deep sub-agent runs may nest (a child of the session's run is 1 deep). */
  maxSubAgentDepth: number;
  /** A new ULID, for a sub-agent call's child run. */
  newRunId(): string;
  /** The caller's signal: aborting it cancels the run. */
  signal: AbortSignal | undefined;
  /** What cancels the run: the caller's signal and the runtime's own (`cancelSignal`). */
  cancels: readonly AbortSignal[];
  /** Set while streaming: receives deltas and tool progress; the model is then streamed. */
  progress: ((event: StepProgress) => void) | undefined;
  /** Called after each successful save with the record and the committed history. */
  onSaved?: ((record: SessionRecord, committed: Item[]) => void) | undefined;
  /** Called with each run snapshot (for stream events). */
  onRunSnapshot?: ((snapshot: RunSnapshot) => void) | undefined;
  /** The stored run's journal entries, read and checked when the session was loaded. */
  journal: readonly JournalEntry[];
  /** The session lease the runtime holds for this action; every save carries it. */
  lease?: SessionLease | undefined;
  /** The runtime's telemetry and logger (absent: none). */
  observability?: Observability | undefined;
  /** Inspects the session actor and every actor under it (XState's `inspect`). */
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /** When changes are saved (`AgentOptions.durability`). @default 'step' */
  durability?: Durability | undefined;
  /** Restores a step in flight may have before its run stops (`AgentOptions.maxRecoveries`). */
  maxRecoveries: number;
  /** `AgentOptions.onRecoveryExhausted`. */
  onRecoveryExhausted: RecoveryExhaustedHook | undefined;
  /** The runtime's recovery turn: its sessions' restored steps run one session at a time. */
  turns: RecoveryTurns;
  /** Takes the messages steered into the session's run, before each of its model calls. */
  steer?: ((log: SessionLog) => Promise<void> | undefined) | undefined;
  /** The session agent's memory across sessions (`AgentOptions.memory`), if it has one. */
  memory?: RuntimeMemory | undefined;
}

/** What one action's session host is given: the bound agent, its sub-agents, the observers. */
export interface HostDepsInput {
  options: AgentOptions<unknown>;
  binding: AgentBinding;
  subAgents: SubAgents;
  key: SessionKey;
  record: SessionRecord;
  clock: Clock;
  observe: RuntimeObservers | undefined;
  /** The stored runs' journals, read and checked at load. */
  journal: readonly JournalEntry[];
  lease: SessionLease | undefined;
  onSaved: (saved: SessionRecord, committed: Item[]) => void;
  observability?: Observability | undefined;
  /** The inspection observer of the session's actors, if anyone inspects them. */
  inspect?: ((event: InspectionEvent) => void) | undefined;
  /** The runtime's permission policy, if any. */
  permissions: PermissionPolicy | undefined;
  /** The runtime's durability (the action's own wins). */
  durability: Durability | undefined;
  /** The runtime's `maxRecoveries` (else the agent's). */
  maxRecoveries: number | undefined;
  /** See `HostDeps.turns`. */
  turns: RecoveryTurns;
  /** See `HostDeps.steer`. */
  steer?: ((log: SessionLog) => Promise<void> | undefined) | undefined;
  /** See `HostDeps.memory`. */
  memory?: RuntimeMemory | undefined;
}

/** What one loaded session's host is given, from the agent bound for the action. */
export function hostDeps(input: HostDepsInput): HostDeps {
  const { options, binding, key, record, observe } = input;
  return {
    agent: { ...boundAgentDeps(options, binding), instructions: binding.instructions },
    history: options.history,
    subAgents: input.subAgents,
    contextFor: (runId) =>
      binding.context.withOverrides({
        runId,
        sessionId: key.sessionId,
        userId: key.userId,
        // an AgentSession's binding has its own context: merge the stored metadata in
        metadata: runMetadata(record, binding.context.metadata),
      }),
    clock: input.clock,
    sessionPermissions: [input.permissions, options.permissions].filter(
      (p): p is PermissionPolicy => p !== undefined,
    ),
    maxSubAgentDepth: options.maxSubAgentDepth ?? DEFAULT_MAX_SUB_AGENT_DEPTH,
    newRunId: newId,
    signal: observe?.signal,
    cancels: [observe?.signal, observe?.cancelSignal].filter((s) => s !== undefined),
    progress: observe?.progress,
    onRunSnapshot: observe?.onRunSnapshot,
    journal: input.journal,
    lease: input.lease,
    onSaved: input.onSaved,
    observability: input.observability,
    inspect: input.inspect,
    // The call's own, else the runtime's (which defaults to the agent's).
    durability: observe?.durability ?? input.durability,
    maxRecoveries: input.maxRecoveries ?? options.maxRecoveries ?? DEFAULT_MAX_RECOVERIES,
    onRecoveryExhausted: options.onRecoveryExhausted,
    turns: input.turns,
    steer: input.steer,
    memory: input.memory,
  };
}

/** What an action's saves carry: its lease, its durability, its `onSaved`. */
export function commitBinding(
  deps: HostDeps,
  host: { log: SessionLog; runInFlight(): boolean },
): CommitBinding {
  return {
    onSaved: (saved) => deps.onSaved?.(saved, host.log.committedItems()),
    lease: deps.lease,
    policy:
      deps.durability === undefined || deps.durability === 'step'
        ? undefined
        : new DurabilityPolicy(deps.durability, {
            runInFlight: () => host.runInFlight(),
            toolResultPending: () => host.log.pendingTool(),
          }),
  };
}
