import { SessionNotFoundError } from '../../errors/session-errors.js';
import type { SessionKey, SessionStatus, SessionStore } from '../../persistence/session-store.js';
import { pendingCalls, type PendingCall } from './pending-calls.js';
import { loadWorkflow, type WorkflowTarget } from './workflow-target.js';

/** An agent session a workflow instance invoked (or one of its child workflows did). */
export interface LinkedSession {
  /** The invoking actor's id in the machine that invoked the agent. */
  actorId: string;
  /** The workflow instances from the one asked about down to the one that invoked it. */
  via: string[];
  key: SessionKey;
  /** `missing` when the linked session's record is gone (purged). */
  status: SessionStatus | 'missing';
  /** The tool calls its run waits on a human's decision for. */
  pending: PendingCall[];
  /** Whether decisions were recorded and wait for the hosting process to run them. */
  held: boolean;
}

/** How deep child workflows are followed (a cycle of links is a damaged store, not a loop). */
const MAX_DEPTH = 16;

/**
 * The agent sessions `target` invoked, with their pending approvals, and those of its child
 * workflows, depth first in the order the machine's links list them. Every read is in the
 * instance owner's partition.
 */
export async function linkedSessions(
  store: SessionStore,
  target: WorkflowTarget,
): Promise<LinkedSession[]> {
  const found: LinkedSession[] = [];
  const walk = async (at: WorkflowTarget, via: string[]): Promise<void> => {
    for (const [actorId, link] of Object.entries(at.instance.links)) {
      if ('workflowId' in link) {
        if (via.length >= MAX_DEPTH || via.includes(link.workflowId)) continue;
        const child = await loadWorkflow(store, link.workflowId, at.key.userId).catch(
          () => undefined,
        );
        if (child) await walk(child, [...via, link.workflowId]);
        continue;
      }
      const key = { sessionId: link.sessionId, userId: at.key.userId };
      try {
        const record = await store.load(key);
        const { pending, held } = pendingCalls(record);
        found.push({ actorId, via, key, status: record.status, pending, held });
      } catch (error) {
        if (!(error instanceof SessionNotFoundError)) throw error;
        found.push({ actorId, via, key, status: 'missing', pending: [], held: false });
      }
    }
  };
  await walk(target, [target.instance.id]);
  return found;
}
