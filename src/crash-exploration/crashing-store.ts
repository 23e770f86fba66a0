import { RUNTIME_PROBE, type RuntimeProbe } from '../core/runtime-probe.js';
import type { SessionCommit, SessionStore } from '../persistence/session-store.js';
import { writeLabel } from './write-label.js';

/**
 * Where a simulated crash lands at a durable write: `before` it reaches the store (nothing
 * written), `during` it (the write in flight while the process runs on a little, then lost
 * with the process), or `after` it landed (written; the process dies before it learns so).
 */
export type CrashSide = 'before' | 'during' | 'after';

export const CRASH_SIDES: readonly CrashSide[] = ['before', 'during', 'after'];

/** A crash point: the `write`-th durable write of the run (from 0) and the side it lands on. */
export interface CrashAt {
  write: number;
  side: CrashSide;
}

/** A durable write the runtime made through the store. */
export interface WriteRecord {
  index: number;
  method: string;
  label: string;
}

/** The store methods that write (each one a journal boundary); every other method reads. */
const WRITES = new Set([
  'create',
  'save',
  'purge',
  'acquireLease',
  'renewLease',
  'releaseLease',
  'dropStaleDeadline',
  'submitDecisions',
  'dropDecisions',
  'queueMessage',
  'dropQueuedMessage',
  'putMemories',
  'deleteMemories',
  'writeWorkingMemory',
  'forgetMemories',
  'createSchedule',
  'saveSchedule',
  'deleteSchedule',
]);

/** How many event-loop turns a `during` crash lets the process run on with the write in flight. */
const DURING_TURNS = 20;

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface CrashingStoreOptions {
  /** Where this process dies (absent: it lives to the end). */
  crashAt?: CrashAt | undefined;
  /** Told of each write as it starts (the reference run's list of boundaries). */
  onWrite?: ((write: WriteRecord) => void) | undefined;
  /** Told of each save that landed and was answered (its journal entries). */
  onSaved?: ((commit: SessionCommit) => void) | undefined;
  /** The test-only probe the runtime reads off the store. */
  probe?: RuntimeProbe | undefined;
}

/**
 * One simulated process's handle on a store: it passes every call to the real store until the
 * process "dies" at its crash point; from then on nothing it asked settles (a dead process
 * learns nothing more), nothing more reaches the store and no callback of a watch runs. The
 * runtime above it is left as a killed process leaves its memory: unreachable.
 */
export class CrashingStore {
  readonly store: SessionStore;
  readonly writes: WriteRecord[] = [];
  dead = false;
  /** Settles when the process dies. */
  readonly died: Promise<void>;
  private die!: () => void;

  constructor(
    inner: SessionStore,
    private readonly options: CrashingStoreOptions = {},
  ) {
    this.died = new Promise<void>((resolve) => (this.die = resolve));
    this.store = new Proxy(inner, {
      get: (target, property, receiver) => {
        if (property === RUNTIME_PROBE) return options.probe;
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        const method = value as (...args: unknown[]) => unknown;
        if (property === 'stats' || property === 'close') return method.bind(target);
        return (...args: unknown[]) => this.call(target, property, method, args);
      },
    });
  }

  /** The process dies now (a crash, or the end of the exploration's use of it). */
  kill(): void {
    if (this.dead) return;
    this.dead = true;
    this.die();
  }

  private call(
    target: SessionStore,
    name: string,
    method: (...args: unknown[]) => unknown,
    args: unknown[],
  ): unknown {
    if (this.dead) return never();
    const live = args.map((a) =>
      typeof a === 'function'
        ? (...inner: unknown[]) =>
            this.dead ? undefined : (a as (...x: unknown[]) => unknown)(...inner)
        : a,
    );
    if (!WRITES.has(name)) return this.answer(method.apply(target, live));
    const record = { index: this.writes.length, method: name, label: writeLabel(name, args) };
    this.writes.push(record);
    this.options.onWrite?.(record);
    const at = this.options.crashAt;
    if (at?.write === record.index) return this.crash(at.side, () => method.apply(target, live));
    const answered = this.answer(method.apply(target, live));
    if (name === 'save' && answered instanceof Promise)
      void answered.then(
        () => this.options.onSaved?.(args[0] as SessionCommit),
        () => undefined,
      );
    return answered;
  }

  /** A result as a living process gets it: never, once the process died meanwhile. */
  private answer(result: unknown): unknown {
    if (!(result instanceof Promise)) return result;
    return result.then(
      (value: unknown) => (this.dead ? never() : value),
      (error: unknown) => (this.dead ? never() : Promise.reject(error as Error)),
    );
  }

  private async crash(side: CrashSide, write: () => unknown): Promise<never> {
    if (side === 'after') {
      try {
        await write();
      } catch {
        // A write that failed is a crash after a failed write: the same to the next process.
      }
    } else if (side === 'during') {
      for (let i = 0; i < DURING_TURNS && !this.dead; i++) await turn();
    }
    this.kill();
    return never();
  }
}
