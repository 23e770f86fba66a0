/**
 * The schedules bench's counters (issue 44): store operations counted where they reach the
 * database (LevelDB backend calls; PostgreSQL statements, through the pool and through clients
 * checked out of it), each under the phase the scheduler was in when it was sent, and the
 * store's schedule calls (index reads, claims, settles) counted as the scheduler makes them.
 *
 * The phase is whatever `PhaseCounter.phase` holds when an operation starts. `trackPhases`
 * sets it from the store's schedule methods: an index read (`dueSchedules`, `dueApprovals`) is
 * `index`, a claim (`saveSchedule` without an audit entry: the firing writes none with a claim
 * unless ticks were missed, which this bench never does) is `claim`, a settle (`saveSchedule`
 * with its tick's audit entry, or the `getSchedule` that re-reads after a conflict) is
 * `settle`, and what follows a claim until the settle is `run`. That holds only while one tick
 * is in flight at a time (`maxConcurrentTicks: 1`): with ticks side by side their operations
 * interleave (and LevelDB's write queue joins their writes in one batch), so the bench counts
 * those totals per tick only.
 */
import type pg from 'pg';
import type { KvBackend } from '../src/persistence/kv/backends/kv-backend.js';
import type { AuditEntry } from '../src/persistence/audit-log.js';
import type { ScheduleRecord, ScheduleStore } from '../src/persistence/schedule-store.js';

/** Where the scheduler is when an operation starts. */
export type Phase = 'index' | 'claim' | 'run' | 'settle' | 'other';

export const PHASES: readonly Phase[] = ['index', 'claim', 'run', 'settle', 'other'];

/** What a LevelDB backend was asked: reads of one key or several, range reads, batches. */
export type BackendOp = 'get' | 'getMany' | 'getManySync' | 'keys' | 'iterate' | 'batch';

export const BACKEND_OPS: readonly BackendOp[] = [
  'get',
  'getMany',
  'getManySync',
  'keys',
  'iterate',
  'batch',
];

/** The store's schedule calls the scheduler makes. */
export interface ScheduleCalls {
  /** `dueSchedules` pages read. */
  indexReads: number;
  /** Records those pages returned. */
  indexRecords: number;
  /** `dueApprovals` pages read (the deadline index, read by the same loop). */
  deadlineReads: number;
  claims: number;
  settles: number;
  /** `getSchedule` calls (a settle that met a conflict reads the record again). */
  rereads: number;
}

/** Counts by phase, and the schedule calls; `reset` between the bench's stages. */
export class PhaseCounter {
  phase: Phase = 'other';
  /** The kinds of operation it counts, in the order figures show them. */
  constructor(private readonly counted: readonly string[]) {}

  private ops = new Map<string, number>();
  calls: ScheduleCalls = emptyCalls();
  /** Called after every settle, with the settles counted so far. */
  onSettle: ((settles: number) => void) | undefined;

  kinds(): readonly string[] {
    return this.counted;
  }

  /** Counts one operation of `kind` under the current phase. */
  count(kind: string): void {
    const key = `${this.phase}:${kind}`;
    this.ops.set(key, (this.ops.get(key) ?? 0) + 1);
  }

  /** Operations of `kind` (any kind when omitted) in `phase` (any phase when omitted). */
  total(phase?: Phase, kind?: string): number {
    let n = 0;
    for (const [key, value] of this.ops) {
      const [p, k] = key.split(':') as [Phase, string];
      if ((phase === undefined || p === phase) && (kind === undefined || k === kind)) n += value;
    }
    return n;
  }

  reset(): void {
    this.ops = new Map();
    this.calls = emptyCalls();
    this.phase = 'other';
  }
}

function emptyCalls(): ScheduleCalls {
  return { indexReads: 0, indexRecords: 0, deadlineReads: 0, claims: 0, settles: 0, rereads: 0 };
}

/**
 * Counts every call `backend` gets (a batch is one `write`, an iterator one `keys`/`iterate`):
 * the calls a store makes, some of which the backend answers from its cache of keys just
 * written without reading LevelDB.
 */
export function countBackend(backend: KvBackend, counter: PhaseCounter): void {
  const get = backend.get.bind(backend);
  const getMany = backend.getMany?.bind(backend);
  const getManySync = backend.getManySync?.bind(backend);
  const keys = backend.keys.bind(backend);
  const iterate = backend.iterate.bind(backend);
  const write = backend.write.bind(backend);
  // LevelDB's `get` is a `getMany` of one key, called before its first await: one call.
  let inGet = false;
  backend.get = (key) => {
    counter.count('get');
    inGet = true;
    try {
      return get(key);
    } finally {
      inGet = false;
    }
  };
  if (getMany) {
    backend.getMany = (ks) => {
      if (!inGet) counter.count('getMany');
      return getMany(ks);
    };
  }
  if (getManySync) {
    backend.getManySync = (ks) => {
      const values = getManySync(ks);
      // A synchronous read that could not answer now is followed by an asynchronous one.
      if (values !== undefined) counter.count('getManySync');
      return values;
    };
  }
  backend.keys = (range) => {
    counter.count('keys');
    return keys(range);
  };
  backend.iterate = (range) => {
    counter.count('iterate');
    return iterate(range);
  };
  backend.write = (ops) => {
    counter.count('batch');
    return write(ops);
  };
}

type Query = (...args: unknown[]) => Promise<unknown>;

/** Counts the statement of a client's `query` call (a callback-less call, as the store makes). */
function countedQuery(target: { query: Query }, counter: PhaseCounter): Query {
  const query = target.query;
  return (...args: unknown[]) => {
    counter.count('statement');
    return query.apply(target, args);
  };
}

/**
 * `pool` seen through a proxy that counts every statement: those of its `query` (the store's
 * single statements) and those of the clients checked out of it while checked out
 * (transactions). A LISTEN connection the store opens on its own is not counted.
 */
export function countingPool(pool: pg.Pool, counter: PhaseCounter): pg.Pool {
  return new Proxy(pool, {
    get(target, name) {
      if (name === 'query') return countedQuery(target, counter);
      if (name === 'connect') {
        return async (...args: unknown[]) => {
          if (args.length) throw new TypeError('countingPool: connect takes no callback here');
          const client = await target.connect();
          // Counted until released: the pool's own `query` uses its clients too.
          const { query, release } = client as unknown as {
            query: typeof client.query;
            release: typeof client.release;
          };
          client.query = countedQuery(client, counter) as unknown as typeof client.query;
          client.release = (...released: Parameters<typeof client.release>) => {
            client.query = query;
            client.release = release;
            release.apply(client, released);
          };
          return client;
        };
      }
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === 'function' ? (value as Query).bind(target) : value;
    },
  });
}

/** Whether a `saveSchedule` is a settle: the firing writes a tick's audit entry with it. */
const isSettle = (audit: AuditEntry | undefined): boolean =>
  audit !== undefined && audit.kind === 'schedule' && audit.action === 'tick';

/**
 * Sets `counter.phase` from the store's schedule methods as the scheduler calls them (see the
 * file's comment) and counts those calls. The store object itself is changed: the scheduler
 * finds its schedule methods on it.
 */
export function trackPhases(
  store: ScheduleStore & { dueApprovals?: ((...args: never[]) => Promise<unknown>) | undefined },
  counter: PhaseCounter,
): void {
  const dueSchedules = store.dueSchedules.bind(store);
  const saveSchedule = store.saveSchedule.bind(store);
  const getSchedule = store.getSchedule.bind(store);
  if (!store.dueApprovals) throw new TypeError('trackPhases: the store keeps no deadline index');
  const dueApprovals = (store.dueApprovals as (...args: unknown[]) => Promise<unknown>).bind(store);
  store.dueSchedules = async (query) => {
    counter.phase = 'index';
    counter.calls.indexReads += 1;
    const page = await dueSchedules(query);
    counter.calls.indexRecords += page.due.length;
    return page;
  };
  (store as { dueApprovals: unknown }).dueApprovals = (...args: unknown[]) => {
    counter.phase = 'index';
    counter.calls.deadlineReads += 1;
    return dueApprovals(...args);
  };
  store.saveSchedule = async (record: ScheduleRecord, audit: AuditEntry | undefined) => {
    const settle = isSettle(audit);
    counter.phase = settle ? 'settle' : 'claim';
    const saved = await saveSchedule(record, audit);
    if (settle) {
      counter.calls.settles += 1;
      counter.phase = 'other';
      counter.onSettle?.(counter.calls.settles);
    } else {
      counter.calls.claims += 1;
      counter.phase = 'run';
    }
    return saved;
  };
  store.getSchedule = async (key) => {
    counter.phase = 'settle';
    counter.calls.rereads += 1;
    return getSchedule(key);
  };
}
