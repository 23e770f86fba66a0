import type { SessionRecord } from '../persistence/session-store.js';
import { readInstanceSnapshot } from '../workflow-host/instance-record.js';

/** A call an instance's linked agent waits for a decision on. */
export interface WorkflowApproval {
  /** The invoked agent's actor id in the machine, and its linked session. */
  actorId: string;
  sessionId: string;
  callId: string;
  /** The tool the call is for. */
  toolName: string;
  arguments: unknown;
}

/** What a linked agent's persisted snapshot says it waits on. */
interface AgentChild {
  snapshot?: {
    context?: { interruptions?: { callId: string; toolName: string; arguments: unknown }[] };
  };
}

/**
 * The calls an instance's linked agents wait for, as its record holds them: each agent's
 * snapshot (persisted inside the machine's) lists its run's pending calls.
 */
export function waitingCalls(record: SessionRecord): WorkflowApproval[] {
  const { machine, host } = readInstanceSnapshot(record.sessionId, record.snapshot);
  const children = (machine.children ?? {}) as Record<string, AgentChild | undefined>;
  const approvals: WorkflowApproval[] = [];
  for (const [actorId, link] of Object.entries(host.links)) {
    if (link.kind !== 'agent') continue;
    for (const call of children[actorId]?.snapshot?.context?.interruptions ?? []) {
      const { callId, toolName, arguments: args } = call;
      approvals.push({ actorId, sessionId: link.id, callId, toolName, arguments: args });
    }
  }
  return approvals;
}
