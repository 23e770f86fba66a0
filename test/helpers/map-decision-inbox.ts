import type {
  DecisionInbox,
  DecisionSubmission,
  DecisionWatch,
  SessionKey,
  SubmittedDecisions,
} from 'agentstate-runtime/store';
import { positiveInteger } from './map-checks.js';
import { sessionMapKey } from './map-keys.js';

/**
 * The decision inbox of a `MapSessionStore`: submissions in submission order, each with an id
 * of its own, and the watchers told of each one. One process holds the maps, so a watcher is
 * a callback of that process.
 */
export class MapDecisionInbox implements DecisionInbox {
  private readonly watchers = new Set<() => void>();
  private nextId = 1;

  constructor(readonly rows: Map<string, SubmittedDecisions>) {}

  async submitDecisions(submission: DecisionSubmission): Promise<void> {
    const { key, runId, decisions, at } = submission;
    sessionMapKey(key);
    if (typeof runId !== 'string' || runId === '') throw new TypeError('runId must be non-empty');
    const id = String(this.nextId++).padStart(16, '0');
    const copy = structuredClone({ runId, decisions, at });
    this.rows.set(id, { key: { sessionId: key.sessionId, userId: key.userId }, id, ...copy });
    for (const watcher of this.watchers) queueMicrotask(watcher);
  }

  async submittedDecisions(query: {
    limit: number;
  }): Promise<{ submitted: SubmittedDecisions[]; damaged: Error[] }> {
    const limit = positiveInteger(query.limit, 'submittedDecisions: limit');
    const submitted = [...this.rows.values()].slice(0, limit).map((row) => structuredClone(row));
    return { submitted, damaged: [] };
  }

  async dropDecisions(entry: SubmittedDecisions): Promise<void> {
    this.rows.delete(entry.id);
  }

  async watchDecisions(onSubmitted: () => void): Promise<DecisionWatch> {
    const watcher = () => onSubmitted();
    this.watchers.add(watcher);
    return { close: async () => void this.watchers.delete(watcher) };
  }

  /** Drops a purged session's submissions. */
  dropSession(key: SessionKey): void {
    const id = sessionMapKey(key);
    for (const [rowId, row] of this.rows) {
      if (sessionMapKey(row.key) === id) this.rows.delete(rowId);
    }
  }
}
