import type { KvBackend, KvOp, KvReader } from './backends/kv-backend.js';
import { PendingWrites } from './backends/pending-writes.js';

/** What a checked write adds to its group: its ops, and what follows once they are written. */
export interface CheckedWrite<T> {
  ops: KvOp[];
  /** Runs once the group's batch is written (the caller's result); never when it failed. */
  written(): T;
  /**
   * No task after this one joins its group: set when `written` changes what a later check
   * reads (state kept beside the backend), so that the later check runs after it.
   */
  endsGroup?: boolean | undefined;
}

/**
 * A write's check: reads what it needs through `view` (the store as the group's earlier writes
 * leave it) and returns its ops, or throws to fail alone, leaving the group unchanged.
 */
export type WriteCheck<T> = (view: KvReader) => Promise<CheckedWrite<T>>;

/** How large one group's batch may grow: no write joins a group that reached either bound. */
export interface GroupLimits {
  ops: number;
  /** UTF-16 code units of the keys and values put (about bytes: the records are mostly ASCII). */
  units: number;
}

export const DEFAULT_GROUP_LIMITS: GroupLimits = { ops: 2000, units: 4 * 1024 * 1024 };

interface Waiting {
  check: WriteCheck<unknown>;
  /** The caller's error when the group's batch failed to write. */
  failed: (error: unknown) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Write tasks of one store, checked one at a time in call order and written in groups (group
 * commit). The first task is checked and written at once; those that arrive while a batch is
 * written wait, then are checked in order, each against the store as the ones before it leave
 * it, and those that pass are written as one atomic batch. A task whose check fails fails
 * alone; when the batch fails, every task with ops in it fails, and none of their `written`
 * runs (a task without ops wrote nothing: it settles as it would have). In a process that holds a key-value backend, each check-then-write is thus atomic, as
 * if the tasks ran one after the other.
 */
export class WriteQueue {
  private readonly waiting: Waiting[] = [];
  /** Settles when the queue has drained; set while it drains. */
  private draining: Promise<void> | undefined;

  constructor(
    private readonly backend: KvBackend,
    private readonly limits: GroupLimits = DEFAULT_GROUP_LIMITS,
  ) {}

  /** Checks and writes `check`'s ops after the tasks queued before it; `failed` maps a batch error. */
  run<T>(check: WriteCheck<T>, failed: (error: unknown) => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        check,
        failed,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.draining ??= Promise.resolve().then(() => this.drain());
    });
  }

  /** Settles once the tasks queued so far have. */
  async idle(): Promise<void> {
    await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length) await this.writeGroup();
    } finally {
      this.draining = undefined;
    }
  }

  /** Checks the waiting tasks (as many as the limits allow), writes them, settles them. */
  private async writeGroup(): Promise<void> {
    const view = new PendingWrites(this.backend);
    const group: { task: Waiting; write: CheckedWrite<unknown> }[] = [];
    const refused: { task: Waiting; error: unknown }[] = [];
    for (let task = this.waiting.shift(); task; task = this.next(view)) {
      try {
        // With nothing pending yet (a group's first task, as every write of a lone session is),
        // the view reads as the backend does: the check reads the backend itself.
        const write = await task.check(view.ops.length ? view : this.backend);
        view.add(write.ops);
        group.push({ task, write });
        if (write.endsGroup) break;
      } catch (error) {
        // A check that fails on what an earlier task of the group writes (a version check) is
        // told once that batch is written: a caller that reads again reads what beat it.
        if (view.ops.length) refused.push({ task, error });
        else task.reject(error);
      }
    }
    let failure: { error: unknown } | undefined;
    if (view.ops.length) {
      try {
        await this.backend.write(view.ops);
      } catch (error) {
        failure = { error };
      }
    }
    for (const { task, error } of refused) task.reject(error);
    for (const { task, write } of group) {
      if (failure && write.ops.length) {
        task.reject(task.failed(failure.error));
        continue;
      }
      try {
        task.resolve(write.written());
      } catch (error) {
        task.reject(error);
      }
    }
  }

  /** The next waiting task, if the group has room for one more. */
  private next(view: PendingWrites): Waiting | undefined {
    const size = view.size();
    return size.ops < this.limits.ops && size.units < this.limits.units
      ? this.waiting.shift()
      : undefined;
  }
}
