import { SessionSaveFailedError } from '../errors/session-errors.js';
import type { Item } from '../items/item.js';
import type { AuditEntry } from '../persistence/audit-log.js';
import type { SessionLease } from '../persistence/session-leases.js';
import type {
  SessionCommit,
  SessionKey,
  SessionRecord,
  SessionStore,
} from '../persistence/session-store.js';
import { canonicalItem, type WriteLog } from './write-log.js';

/** The faults a worker's store injects, drawn from the simulation's seeded generator. */
export interface StoreFaults {
  /** Probability that a write first waits a few turns of the event loop (others go first). */
  slowWrites: number;
  /** Probability that a write fails: half before it is written, half after (its answer lost). */
  failedWrites: number;
}

/** A save the simulation holds back until it lets it go (`ObservedStore.holdNext`). */
export interface HeldSave {
  /** Resolves when the save arrived and waits. */
  readonly arrived: Promise<void>;
  /** Lets it go on (or, if it never arrived, lets the next one through). */
  release(): void;
}

/** What `observedStore` adds to the store it wraps. */
export interface ObservedStore extends SessionStore {
  /** Holds this worker's next save of `sessionId` until released. */
  holdNext(sessionId: string): HeldSave;
  /** Turns the injected faults off or on (the final drain runs without). */
  faultsOn: boolean;
  /**
   * Whether this worker is doing anything on the store: a lease held (taken and not yet given
   * up), or a call to the store not yet answered.
   */
  readonly busy: boolean;
}

/** Yields `turns` times to the event loop (no sleep, no timer): other work goes first. */
export const yieldTurns = async (turns: number): Promise<void> => {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/**
 * One worker's view of the store: the store itself for every method but the writes, which it
 * logs once the store accepted them (`WriteLog`), after injecting the faults drawn for them; the
 * lease grants it logs too. A proxy, so the store keeps every optional capability it has.
 */
export function observedStore(
  store: SessionStore,
  parts: {
    worker: number;
    log: WriteLog;
    faults: StoreFaults;
    random: () => number;
    /**
     * Whether other workers hold this same object (a store one process holds, its leases in
     * it): the view then says its leases are not this process's alone (`leasesInProcess`
     * false), so each worker's runtime treats it as a store shared by processes, as workers are.
     */
    shared: boolean;
  },
): ObservedStore {
  const { worker, log, faults, random } = parts;
  const holds = new Map<string, { arrived: () => void; gate: Promise<void> }>();
  const state = { faultsOn: true };

  /** The fault drawn for one write: none, before it is written, or after (answer lost). */
  async function inject(sessionId: string): Promise<'after' | undefined> {
    const held = holds.get(sessionId);
    if (held) {
      holds.delete(sessionId);
      held.arrived();
      await held.gate;
    }
    if (!state.faultsOn) return undefined;
    if (random() < faults.slowWrites) await yieldTurns(1 + Math.floor(random() * 12));
    if (random() >= faults.failedWrites) return undefined;
    if (random() < 0.5) {
      throw new SessionSaveFailedError(sessionId, new Error('simulated failed write'));
    }
    return 'after';
  }

  const lost = (sessionId: string) =>
    new SessionSaveFailedError(
      sessionId,
      new Error('simulated failed write: written, answer lost'),
    );

  function accepted(
    record: SessionRecord,
    items: readonly Item[],
    lease: SessionLease | undefined,
    newestGrant: number,
    acknowledged: boolean,
  ): void {
    log.saves.push({
      worker,
      sessionId: record.sessionId,
      version: record.version,
      leaseToken: lease?.token,
      newestGrant,
      start: record.historyLength - items.length,
      items: items.map(canonicalItem),
      acknowledged,
    });
  }

  const save = async (commit: SessionCommit): Promise<SessionRecord> => {
    const { sessionId } = commit.record;
    const fault = await inject(sessionId);
    const newestGrant = log.newestGrant(sessionId);
    const saved = await store.save(commit);
    accepted(saved, commit.items, commit.lease, newestGrant, fault === undefined);
    if (fault) throw lost(sessionId);
    return saved;
  };

  const create = async (
    input: Omit<SessionRecord, 'version'>,
    items: Item[] = [],
    audit?: readonly AuditEntry[],
  ): Promise<SessionRecord> => {
    const fault = await inject(input.sessionId);
    const created = await store.create(input, items, audit);
    accepted(created, items, undefined, 0, fault === undefined);
    if (fault) throw lost(input.sessionId);
    return created;
  };

  const leases = store as SessionStore & {
    acquireLease(k: SessionKey, o: string, t: number): Promise<SessionLease | undefined>;
    releaseLease(lease: SessionLease): Promise<unknown>;
  };
  const held = new Set<string>();
  const leaseId = (lease: SessionLease) => `${lease.sessionId}\n${lease.owner}\n${lease.token}`;
  const acquireLease = async (key: SessionKey, owner: string, ttlMs: number) => {
    const lease = await leases.acquireLease(key, owner, ttlMs);
    if (lease) {
      log.granted(key.sessionId, lease.token);
      held.add(leaseId(lease));
    }
    return lease;
  };
  const releaseLease = async (lease: SessionLease) => {
    try {
      return await leases.releaseLease(lease);
    } finally {
      held.delete(leaseId(lease));
    }
  };

  const holdNext = (sessionId: string): HeldSave => {
    let arrived!: () => void;
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    holds.set(sessionId, { arrived, gate });
    return {
      arrived: arrival,
      release: () => {
        if (holds.get(sessionId)?.gate === gate) holds.delete(sessionId);
        release();
      },
    };
  };

  const calls = { count: 0 };
  const own: Record<PropertyKey, unknown> = {
    save: counted(save, calls),
    create: counted(create, calls),
    holdNext,
    acquireLease: counted(acquireLease, calls),
    releaseLease: counted(releaseLease, calls),
  };
  if (parts.shared) own['leasesInProcess'] = false;
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store as ObservedStore, {
    get(target, property) {
      if (property === 'faultsOn') return state.faultsOn;
      if (property === 'busy') return held.size > 0 || calls.count > 0;
      if (property in own) return own[property];
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(property);
      if (method === undefined) {
        method = counted((value as (...args: unknown[]) => unknown).bind(target), calls);
        bound.set(property, method);
      }
      return method;
    },
    set(target, property, value) {
      if (property !== 'faultsOn') return Reflect.set(target, property, value, target);
      state.faultsOn = value === true;
      return true;
    },
  });
}

/** `method`, counting in `calls` the promises it returned that have not settled yet. */
function counted<A extends unknown[], R>(
  method: (...args: A) => R,
  calls: { count: number },
): (...args: A) => R {
  return (...args: A): R => {
    const result = method(...args);
    if (result instanceof Promise) {
      calls.count += 1;
      const done = (): void => {
        calls.count -= 1;
      };
      result.then(done, done);
    }
    return result;
  };
}
