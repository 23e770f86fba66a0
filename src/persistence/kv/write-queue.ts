/**
 * Write tasks run one at a time, in call order: in a process that holds a key-value backend,
 * each check-then-write of a store is atomic. A failed task fails its caller only; the queue
 * goes on.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once the tasks queued before it have settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Settles once the tasks queued so far have. */
  async idle(): Promise<void> {
    await this.tail;
  }
}
