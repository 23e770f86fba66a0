import { SessionNotFoundError } from '../../errors/session-errors.js';
import type { SessionKey, SessionStatus, SessionStore } from '../../persistence/session-store.js';
import { pendingCalls, type PendingCall } from './pending-calls.js';
import { loadWorkflow, type WorkflowTarget } from './workflow-target.js';

/** An agent session a workflow instance invoked (or one of its child workflows did). */
export interface LinkedSession {
  /** The invoking actor's id in the machine that invoked the agent. */
  actorId: string;
  /** The agent's name in the host's `agents`. */
  agent: string;
  /** The workflow instances from the one asked about down to the one that invoked it. */
  via: string[];
  key: SessionKey;
  /** `missing` when the linked session's record is gone (purged). */
  status: SessionStatus | 'missing';
  /** The tool calls its run waits on a human's decision for. */
  pending: PendingCall[];
}

/** How deep child workflows are followed (a cycle of links is a damaged store, not a loop). */
const MAX_DEPTH = 16;

/**
 * The agent sessions `target` invoked, with the calls their runs wait on a decision for (read
 * from the sessions themselves, as `sessions show` reads them), and those of its child
 * workflows, depth first in the order of the instance's links. Every read is in the instance
 * owner's partition.
 */
export async function linkedSessions(
  store: SessionStore,
  target: WorkflowTarget,
): Promise<LinkedSession[]> {
  const found: LinkedSession[] = [];
  const walk = async (at: WorkflowTarget, via: string[]): Promise<void> => {
    for (const link of at.info.links) {
      if (link.kind === 'workflow') {
        if (via.length >= MAX_DEPTH || via.includes(link.id)) continue;
        const child = await loadWorkflow(store, link.id, at.key.userId).catch(() => undefined);
        if (child) await walk(child, [...via, link.id]);
        continue;
      }
      const key = { sessionId: link.id, userId: at.key.userId };
      const base = { actorId: link.actorId, agent: link.name, via, key };
      try {
        const record = await store.load(key);
        found.push({ ...base, status: record.status, pending: pendingCalls(record).pending });
      } catch (error) {
        if (!(error instanceof SessionNotFoundError)) throw error;
        found.push({ ...base, status: 'missing', pending: [] });
      }
    }
  };
  await walk(target, [target.info.id]);
  return found;
}
