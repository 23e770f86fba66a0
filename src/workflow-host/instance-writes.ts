import type { Actor, AnyStateMachine } from 'xstate';
import type { JournalEntry, SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { SessionLease } from '../persistence/session-leases.js';
import { serializeError } from '../errors/agentstate-error.js';
import type { HostMeta, InstanceSnapshot } from './instance-record.js';
import { nextTimerAt } from './instance-timers.js';

/**
 * The record a save of an instance writes: the machine's persisted snapshot (its error as
 * plain JSON) and `HostMeta` copied as they are now, the status read from both, the earliest
 * timer as the record's deadline (the store's deadline index), whether it waits for a human.
 */
export function instanceRecord(now: {
  actor: Actor<AnyStateMachine>;
  meta: HostMeta;
  record: SessionRecord;
  now: number;
  /** A linked agent waits for a decision, or a step for an operator. */
  waiting: boolean;
}): SessionRecord {
  const { actor, meta } = now;
  const persisted = actor.getPersistedSnapshot() as Record<string, unknown>;
  const machine = JSON.parse(JSON.stringify(persisted)) as InstanceSnapshot['machine'];
  const xstate = actor.getSnapshot() as { status: string; error?: unknown };
  if (xstate.error !== undefined) machine.error = serializeError(xstate.error, 'TOOL_STEP_FAILED');
  const host = JSON.parse(JSON.stringify(meta)) as HostMeta;
  const ended = meta.cancelled !== undefined || xstate.status !== 'active';
  return {
    ...now.record,
    status: statusOf(meta, xstate.status),
    updatedAt: now.now,
    snapshot: { format: 1, machine, host } satisfies InstanceSnapshot,
    approvalDeadline: ended ? undefined : nextTimerAt(meta.timers),
    awaitingApproval: now.waiting || undefined,
  };
}

/** `active` while the machine runs or waits; `completed` at a final state; `failed` else. */
function statusOf(meta: HostMeta, xstate: string): SessionRecord['status'] {
  if (meta.cancelled) return 'failed';
  if (xstate === 'done') return 'completed';
  return xstate === 'error' ? 'failed' : 'active';
}

/**
 * Writes `record` with the journal entries and inbox entries it carries, in one atomic batch
 * under `lease`: the first write of a new instance creates it (`stored` undefined; a taken id is
 * `SessionConflictError`), every later one needs the stored version (`SessionConflictError`) and
 * a lease still held (`LeaseLostError`). Resolves with the record as stored.
 */
export async function writeInstance(
  store: SessionStore,
  stored: SessionRecord | undefined,
  record: SessionRecord,
  journal: JournalEntry[],
  dequeued: string[],
  lease: SessionLease | undefined,
): Promise<SessionRecord> {
  let version = stored?.version;
  if (version === undefined) {
    const { version: _version, ...fresh } = record;
    void _version;
    const created = await store.create(fresh);
    if (journal.length === 0 && dequeued.length === 0) return created;
    version = created.version;
  }
  return store.save({ record: { ...record, version }, items: [], journal, dequeued, lease });
}
