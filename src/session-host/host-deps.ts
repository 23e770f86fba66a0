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
import type { ActionObservers } from '../session-host/action-observers.js';
import type { HostDeps } from './session-host.js';
import type { SubAgents } from './sub-agents.js';
import type { Observability } from '../telemetry/observability.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import type { Durability } from '../core/durability-policy.js';

/** How deep sub-agent runs nest by default (`AgentOptions.maxSubAgentDepth`). */
const DEFAULT_MAX_SUB_AGENT_DEPTH = 5;

/** What one action's session host is given: the bound agent, its sub-agents, the observers. */
export interface HostDepsInput {
  options: AgentOptions<unknown>;
  binding: AgentBinding;
  subAgents: SubAgents;
  key: SessionKey;
  record: SessionRecord;
  clock: Clock;
  observe: ActionObservers | undefined;
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
}

/** The step dependencies of one loaded session, from the agent bound for the action. */
export function hostDeps(input: HostDepsInput): HostDeps {
  const { options, binding, key, record, observe } = input;
  return {
    agentName: options.name,
    model: options.model,
    tools: binding.tools,
    toolSpecs: binding.toolSpecs,
    baseInstructions: binding.instructions,
    history: options.history,
    outputType: options.outputType,
    outputSchema: binding.outputSchema,
    inputGuardrails: options.inputGuardrails,
    outputGuardrails: options.outputGuardrails,
    redact: options.redact,
    contextFor: (runId) =>
      binding.context.withOverrides({
        runId,
        sessionId: key.sessionId,
        userId: key.userId,
        // an AgentSession's binding has its own context: merge the stored metadata in
        metadata: runMetadata(record, binding.context.metadata),
      }),
    clock: input.clock,
    prices: options.prices,
    approvalTimeoutMs: options.approvalTimeoutMs,
    permissions: options.permissions,
    sessionPermissions: [input.permissions, options.permissions].filter(
      (p): p is PermissionPolicy => p !== undefined,
    ),
    agentFor: (path) => input.subAgents.get(path ?? []),
    maxSubAgentDepth: options.maxSubAgentDepth ?? DEFAULT_MAX_SUB_AGENT_DEPTH,
    newRunId: newId,
    signal: observe?.signal,
    progress: observe?.progress,
    onRunSnapshot: observe?.onRunSnapshot,
    journal: input.journal,
    lease: input.lease,
    onSaved: input.onSaved,
    observability: input.observability,
    inspect: input.inspect,
    // The call's own, else the runtime's (which defaults to the agent's).
    durability: observe?.durability ?? input.durability,
  };
}
