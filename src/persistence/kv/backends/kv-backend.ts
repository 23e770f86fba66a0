import type { KvRange } from '../../key-range.js';
import type { StoreStats } from '../../session-store.js';

/** One operation of an atomic batch. Keys and values are strings. */
export type KvOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/**
 * Test-only fault injection: called for every op of a batch before it is queued. If it throws,
 * the whole batch is dropped (nothing is applied) and the error is rethrown by `write`.
 */
export type BatchOpHook = (index: number, op: KvOp) => void;

/** What a store's checks read before a write: values by key, and the keys of a range. */
export interface KvReader {
  get(key: string): Promise<string | undefined>;
  getMany?(keys: string[]): Promise<(string | undefined)[]>;
  /**
   * Reads several keys synchronously, or returns `undefined` when it cannot right now. For
   * keys this process just wrote (in LevelDB's memtable or cache) a synchronous read takes
   * about a microsecond; the asynchronous one costs a thread-pool round trip.
   */
  getManySync?(keys: string[]): (string | undefined)[] | undefined;
  /** Keys of a range, ordered by key, without reading their values. */
  keys(range: KvRange): AsyncIterable<string>;
}

/**
 * A tiny ordered key-value store: everything the session stores need from LevelDB, so the
 * memory and LevelDB stores share all their logic.
 */
export interface KvBackend extends KvReader {
  /** Applies every op or none of them. */
  write(ops: KvOp[]): Promise<void>;
  /** Entries of a range, ordered by key. */
  iterate(range: KvRange): AsyncIterable<[string, string]>;
  /** Batches and bytes (utf8 length of every key and value put) written since opening. */
  stats(): StoreStats;
  /**
   * Rewrites the files that hold keys of `ranges` (each `gte` to `lt`, both included), so that
   * what was deleted there leaves the disk: LevelDB keeps deleted values in its log and table
   * files until a compaction reaches them. A backend with nothing on disk has none.
   */
  compact?(ranges: readonly KvRange[]): Promise<void>;
  close(): Promise<void>;
}

/** Options shared by the backends. */
export interface KvBackendOptions {
  /** Test-only fault injection, see {@link BatchOpHook}. */
  onBatchOp?: BatchOpHook | undefined;
}

/** Counts batches and put bytes; shared by the backends so they measure the same thing. */
export class KvWriteStats {
  private batches = 0;
  private bytesWritten = 0;

  /** Records a batch that was applied. */
  record(ops: readonly KvOp[]): void {
    this.batches += 1;
    for (const op of ops) {
      if (op.type === 'put') {
        this.bytesWritten +=
          Buffer.byteLength(op.key, 'utf8') + Buffer.byteLength(op.value, 'utf8');
      }
    }
  }

  snapshot(): StoreStats {
    return { batches: this.batches, bytesWritten: this.bytesWritten };
  }
}

/** Reads several keys, through `getMany` when the backend has it. */
export async function getAll(backend: KvReader, keys: string[]): Promise<(string | undefined)[]> {
  if (backend.getMany) return backend.getMany(keys);
  return Promise.all(keys.map((key) => backend.get(key)));
}
