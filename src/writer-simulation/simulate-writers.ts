import { mulberry32 } from '../core/seeded-random.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import type { Item } from '../items/item.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { hasLeases, hasMessageInbox } from '../persistence/store-supports.js';
import { SessionRuntime } from '../sessions/session-runtime.js';
import { FakeClock } from '../testing/fake-clock.js';
import { observedStore } from './observed-store.js';
import { lastUserText, simulatedAgent } from './simulated-agent.js';
import { WorkerClock } from './worker-clock.js';
import { WriteLog } from './write-log.js';
import { writersSettings, type SimulateWritersOptions } from './writers-options.js';
import { writersVerdict, type WritersReport } from './writers-report.js';
import { LEASE_TTL_MS, WritersRun, type Worker } from './writers-run.js';

/**
 * A seeded simulation of several workers (processes) on one store: each with its own runtime,
 * lease owner and skewed clock, its store handle injecting slow and failed writes; sends with
 * message ids (`whileBusy` 'queue' or 'reject'), cancels and approvals from any worker,
 * recoveries and lost leases, overlapping. It logs every write the store accepts and every
 * send's and approval's outcome, reads the final histories, and reports forked histories, stale
 * writes (a write accepted from a worker whose lease was taken over), lost or doubled messages,
 * lost approvals and calls never answered. The same seed makes the same choices; the stores
 * opened are the caller's to close.
 *
 * @example
 * let shared: MemorySessionStore | undefined; // one store object, its leases in it
 * const report = await simulateWriters({
 *   seed: 7,
 *   open: ({ clock }) => (shared ??= new MemorySessionStore({ clock })),
 * });
 * // report.staleWrites, report.forkedHistories, ...: each empty when the store holds
 */
export async function simulateWriters(options: SimulateWritersOptions): Promise<WritersReport> {
  const settings = writersSettings(options);
  const { seed } = settings;
  const random = mulberry32(seed);
  const world = new FakeClock();
  const log = new WriteLog();
  const agent = options.agent ?? simulatedAgent();
  const opened: { clock: WorkerClock; store: SessionStore }[] = [];
  for (let index = 0; index < settings.workers; index++) {
    const skew = Math.round((random() * 2 - 1) * settings.faults.clockSkewMs);
    const clock = new WorkerClock(world, skew);
    const store = await options.open({ index, clock });
    if (!isLeasingStore(store)) {
      throw new TypeError(
        'simulateWriters(): option "open" must return a SessionStore that keeps leases (acquireLease and the others)',
      );
    }
    opened.push({ clock, store });
  }
  const workers: Worker[] = opened.map(({ clock, store: inner }, index) => {
    const shared = opened.some((other, i) => i !== index && other.store === inner);
    const { faults } = settings;
    const store = observedStore(inner, { worker: index, log, faults, random, shared });
    const owner = `sim-worker-${index}`;
    const lease = { owner, ttlMs: LEASE_TTL_MS };
    const runtime = new SessionRuntime({ store, agent, clock, lease });
    return { index, owner, clock, store, runtime };
  });
  const userId = `sim-${seed}`;
  const keys = Array.from({ length: settings.sessions }, (_, i) => ({
    sessionId: `sim-${seed}-s${i}`,
    userId,
  }));
  const stuck = await new WritersRun(settings, { random, world, log, workers, keys }).run();
  const finals = new Map<string, { items: Item[]; queued: string[] }>();
  for (const key of keys) finals.set(key.sessionId, await finalSession(workers[0]!.store, key));
  return writersVerdict(seed, settings.operations, log, finals, stuck);
}

function isLeasingStore(store: unknown): store is SessionStore {
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof (store as SessionStore).save === 'function' &&
    hasLeases(store as SessionStore)
  );
}

/** The session's history (none if it was never made) and the texts left in its inbox. */
async function finalSession(store: SessionStore, key: SessionKey) {
  const items = await store.readHistory(key).catch((error: unknown) => {
    if (error instanceof SessionNotFoundError) return [];
    throw error;
  });
  const left = hasMessageInbox(store) ? await store.queuedMessages(key) : [];
  return { items, queued: left.map((message) => lastUserText(message.items as Item[])) };
}
