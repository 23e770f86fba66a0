import type { QueuedMessage } from '../persistence/message-inbox.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { instanceCommand, type InstanceCommand } from './instance-command.js';
import type { InstanceSaves } from './instance-saves.js';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** The inbox read by the instance that holds it, oldest entry first. */
const READ_AT_ONCE = 50;

/**
 * What reaches an instance through the store's message inbox (events, cancels, decisions,
 * answers), taken by the process that holds it: each entry is applied (or refused) once, and
 * leaves the inbox in the save that carries its effect. A caller in this process waits for its
 * entry (`waitFor`): settled by that save, or rejected with the command's error.
 */
export class InstanceInbox {
  /** Entries this instance took. */
  private readonly taken = new Set<string>();
  private readonly waiters = new Map<string, Waiter>();

  constructor(
    private readonly id: string,
    private readonly key: SessionKey,
    private readonly store: SessionStore,
    private readonly saves: InstanceSaves,
    /** Applies a command to the machine (throws the command's error). */
    private readonly execute: (command: InstanceCommand, queuedId: string) => void,
    private readonly stopped: () => boolean,
  ) {}

  /** Applies the inbox's entries until it is empty; resolves once they are saved. */
  async drain(): Promise<void> {
    const { store } = this;
    if (!store.queuedMessages) return;
    for (;;) {
      if (this.stopped()) return;
      const queued = await store.queuedMessages(this.key, { limit: READ_AT_ONCE });
      const fresh = queued.filter((m) => !this.taken.has(m.id));
      if (fresh.length === 0) return;
      for (const message of fresh) this.apply(message);
      await this.saves.flushed();
    }
  }

  /** Waits for the entry `id` to be applied and saved (or refused). */
  waitFor(id: string): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.set(id, { resolve, reject }));
  }

  /** Whether this instance took the entry `id` (applied or refused it). */
  took(id: string): boolean {
    return this.taken.has(id);
  }

  /** Stops waiting for the entry `id` (it was not in the inbox this instance read). */
  forget(id: string): void {
    this.waiters.delete(id);
  }

  /** Rejects every caller waiting (the instance stopped). */
  rejectAll(error: unknown): void {
    for (const waiter of this.waiters.values()) waiter.reject(error);
    this.waiters.clear();
  }

  private apply(message: QueuedMessage): void {
    this.taken.add(message.id);
    this.saves.dequeued.push(message.id);
    this.saves.markDirty();
    try {
      this.execute(instanceCommand(this.id, message), message.id);
      this.settle(message.id);
    } catch (error) {
      this.settle(message.id, error);
    }
  }

  private settle(id: string, error?: unknown): void {
    const waiter = this.waiters.get(id);
    if (!waiter) return;
    this.waiters.delete(id);
    if (error === undefined) this.saves.settleWithNext(waiter);
    else waiter.reject(error);
  }
}
