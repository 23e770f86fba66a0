import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Level } from 'level';
import { StoreLockedError, StoreOpenFailedError } from '../../../errors/session-errors.js';
import {
  KvWriteStats,
  type BatchOpHook,
  type KvBackend,
  type KvBackendOptions,
  type KvOp,
} from './kv-backend.js';
import { type KvRange } from '../../key-range.js';
import { WrittenKeys } from './written-keys.js';
import type { StoreStats } from '../../session-store.js';

/** What `level` is in Node (`classic-level`) adds to its declared type: manual compaction. */
interface Compactable {
  /** Compacts the keys from `start` to `end`, both included (LevelDB's `CompactRange`). */
  compactRange(start: string, end: string): Promise<void>;
}

/** Entries fetched per native call while iterating. */
const ITERATE_CHUNK = 500;

/** The typed error for a database that did not open. */
function openError(path: string, error: unknown): Error {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'LEVEL_LOCKED'
    ? new StoreLockedError(path, error)
    : new StoreOpenFailedError(path, error);
}

function levelRange(range: KvRange) {
  return {
    gte: range.gte,
    lt: range.lt,
    reverse: range.reverse ?? false,
    ...(range.limit === undefined ? {} : { limit: range.limit }),
  };
}

/**
 * Yields what a level iterator holds, fetched in chunks: entry by entry costs a native round
 * trip and a promise each (a cold 2,000-item history took 13 ms that way, 3 ms in chunks).
 */
async function* inChunks<T, D>(
  opened: Promise<D>,
  open: (db: D) => { nextv(size: number): Promise<T[]>; close(): Promise<void> },
): AsyncIterable<T> {
  const iterator = open(await opened);
  try {
    for (;;) {
      const chunk = await iterator.nextv(ITERATE_CHUNK);
      if (chunk.length === 0) break;
      for (const entry of chunk) yield entry;
    }
  } finally {
    await iterator.close();
  }
}

/** The options of a {@link LevelBackend}. */
export interface LevelBackendOptions extends KvBackendOptions {
  /**
   * The keys whose last written values the backend keeps to answer reads with (see
   * `WrittenKeys`): their prefixes, and how many keys at most. @default none
   */
  readBack?: { prefixes: readonly string[]; keys: number } | undefined;
}

/**
 * Whether the folder `path` holds a LevelDB database (its `CURRENT` file names the manifest),
 * told without opening it: opening creates the database, and its files, where there was none.
 */
export function holdsLevelDatabase(path: string): boolean {
  try {
    return statSync(join(path, 'CURRENT')).isFile();
  } catch {
    return false;
  }
}

/**
 * {@link KvBackend} on LevelDB (`level`), with utf8 keys and values. The only module that
 * imports `level`, and only when a backend is constructed (importing agentstate does not load
 * it). LevelDB allows one process per folder; the database opens when constructed (the folder
 * is created then) and `open()` waits for it. Holding the folder alone, it sees every write to
 * the database: a read of keys it wrote last (`readBack`) is answered with what it wrote.
 */
export class LevelBackend implements KvBackend {
  private readonly onBatchOp: BatchOpHook | undefined;
  private readonly writeStats = new KvWriteStats();
  /** The values last written or read at the keys read back (none without `readBack`). */
  private readonly writtenKeys: WrittenKeys | undefined;
  /** How many writes have ended (written or failed): a read noted only if none ended meanwhile. */
  private writesEnded = 0;

  /** The database once `level` is loaded; every operation waits for `opened` first. */
  private db: Level<string, string> | undefined;
  /** Settles when the database has opened. */
  private readonly opened: Promise<Level<string, string>>;

  constructor(path: string, options: LevelBackendOptions = {}) {
    this.onBatchOp = options.onBatchOp;
    const { readBack } = options;
    this.writtenKeys = readBack && new WrittenKeys(readBack.prefixes, readBack.keys);
    this.opened = import('level')
      .then(async ({ Level }) => {
        const db = new Level<string, string>(path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
        this.db = db;
        await db.open();
        return db;
      })
      .catch((error: unknown) => {
        throw openError(path, error);
      });
    this.opened.catch(() => undefined); // reported by the first operation, not as unhandled
  }

  /**
   * Resolves once the database is open; rejects with `StoreLockedError` when another process
   * (or another open store in this one) holds the folder, `StoreOpenFailedError` otherwise.
   */
  async open(): Promise<void> {
    await this.opened;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.getMany([key]))[0];
  }

  async getMany(keys: string[]): Promise<(string | undefined)[]> {
    const known = this.writtenKeys?.read(keys);
    if (known) return known;
    const ended = this.writesEnded;
    const values = await (await this.opened).getMany(keys);
    if (this.writesEnded === ended) this.writtenKeys?.found(keys, values);
    return values;
  }

  getManySync(keys: string[]): (string | undefined)[] | undefined {
    const known = this.writtenKeys?.read(keys);
    if (known) return known;
    const db = this.db;
    if (db?.status !== 'open') return undefined;
    const values = keys.map((key) => db.getSync(key));
    this.writtenKeys?.found(keys, values);
    return values;
  }

  async write(ops: KvOp[]): Promise<void> {
    const db = await this.opened;
    if (ops.length === 0) return;
    const batch = db.batch();
    try {
      ops.forEach((op, index) => {
        this.onBatchOp?.(index, op);
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
      });
    } catch (error) {
      await batch.close();
      throw error;
    }
    try {
      await batch.write();
    } catch (error) {
      this.writtenKeys?.forget(ops);
      throw error;
    } finally {
      this.writesEnded += 1;
    }
    this.writtenKeys?.written(ops);
    this.writeStats.record(ops);
  }

  iterate(range: KvRange): AsyncIterable<[string, string]> {
    return inChunks(this.opened, (db) => db.iterator(levelRange(range)));
  }

  keys(range: KvRange): AsyncIterable<string> {
    return inChunks(this.opened, (db) => db.keys(levelRange(range)));
  }

  stats(): StoreStats {
    return this.writeStats.snapshot();
  }

  /**
   * LevelDB's manual compaction of each range: the memtable is written to a table (its log
   * dropped), then every level's files overlapping the range are merged down, and deleted
   * values (with their tombstones, at the last level) are left out of the files written.
   */
  async compact(ranges: readonly KvRange[]): Promise<void> {
    // `level` is `classic-level` in Node, whose `compactRange` its type declarations leave out.
    const db = (await this.opened) as unknown as Compactable;
    for (const range of ranges) await db.compactRange(range.gte, range.lt);
  }

  async close(): Promise<void> {
    await this.opened.catch(() => undefined); // a database that did not open closes too
    this.writtenKeys?.clear();
    await this.db?.close();
  }
}
