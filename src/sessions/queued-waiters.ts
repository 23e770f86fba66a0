import type { SessionAction } from '../actions/session-action.js';
import type { QueuedMessage } from '../persistence/message-inbox.js';
import { MessageQueuedError } from '../errors/message-queued-error.js';

/** A caller in this process awaiting the answer to its queued message. */
export interface QueuedWaiter {
  message: QueuedMessage;
  /** The caller's own action (its observers, its stream): the run that answers it runs it. */
  action: SessionAction<unknown>;
  answer: Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * The callers in this process awaiting queued messages, by session (`cacheKey`) and message
 * id, shared by the runtimes that share one `BusyRuns`; the ids of messages whose caller gave
 * up before a run took them (dropped, never answered); and the messages being stored, which a
 * reader of the inbox waits for (so it never takes one before its caller is registered).
 */
export class QueuedWaiters {
  private readonly waiting = new Map<string, Map<string, QueuedWaiter>>();
  private readonly given = new Map<string, Set<string>>();
  private readonly storing = new Map<string, Set<Promise<unknown>>>();

  /** Registers the caller of a message just stored. */
  add(session: string, message: QueuedMessage, action: SessionAction<unknown>): QueuedWaiter {
    let resolve!: (value: unknown) => void;
    let reject!: (error: unknown) => void;
    const answer = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const waiter = { message, action, answer, resolve, reject };
    const of = this.waiting.get(session) ?? new Map<string, QueuedWaiter>();
    of.set(message.id, waiter);
    this.waiting.set(session, of);
    return waiter;
  }

  /** Notes a message being stored until `stored` settles. */
  registering(session: string, stored: Promise<unknown>): void {
    const of = this.storing.get(session) ?? new Set<Promise<unknown>>();
    of.add(stored);
    this.storing.set(session, of);
    const done = (): void => {
      of.delete(stored);
      if (of.size === 0 && this.storing.get(session) === of) this.storing.delete(session);
    };
    stored.then(done, done);
  }

  /** Resolves once the messages being stored now for the session are (or failed). */
  async registered(session: string): Promise<void> {
    const of = this.storing.get(session);
    if (of) await Promise.allSettled([...of]);
  }

  /** Whether callers here await messages of the session. */
  has(session: string): boolean {
    return (this.waiting.get(session)?.size ?? 0) > 0 || this.storing.has(session);
  }

  /** Whether a caller here awaits a steer of the session. */
  steers(session: string): boolean {
    for (const waiter of this.waiting.get(session)?.values() ?? []) {
      if (waiter.message.kind === 'steer') return true;
    }
    return false;
  }

  /** The ids of the session's messages whose callers wait here now. */
  ids(session: string): string[] {
    return [...(this.waiting.get(session)?.keys() ?? [])];
  }

  get(session: string, id: string): QueuedWaiter | undefined {
    return this.waiting.get(session)?.get(id);
  }

  /** Removes a message's caller and hands it to `settle` (nothing when none waits here). */
  settle(session: string, id: string, settle: (waiter: QueuedWaiter) => void): void {
    const waiter = this.take(session, id);
    if (waiter) settle(waiter);
  }

  /**
   * The callers of these messages hear `MessageQueuedError`: another process's run took them
   * (or takes them), and answers them there.
   */
  answeredElsewhere(sessionId: string, session: string, ids: readonly string[]): void {
    for (const id of ids) {
      this.settle(session, id, (w) =>
        w.reject(new MessageQueuedError(sessionId, id, w.message.kind)),
      );
    }
  }

  /**
   * A drain stops with the session's messages left in the inbox and their callers waiting
   * here. On a store shared by processes the next run of the session may be another
   * process's, which answers them there and tells no one here: each caller is told its message
   * is queued (`MessageQueuedError`), as when another process runs the session.
   */
  leftToOthers(sessionId: string, session: string): void {
    this.answeredElsewhere(sessionId, session, this.ids(session));
  }

  /** The caller gave up: true if it still waited (the message is then never answered). */
  cancel(session: string, id: string): boolean {
    if (!this.take(session, id)) return false;
    const of = this.given.get(session) ?? new Set<string>();
    of.add(id);
    this.given.set(session, of);
    return true;
  }

  /** Whether the message's caller gave up before a run took it. */
  cancelled(session: string, id: string): boolean {
    return this.given.get(session)?.has(id) === true;
  }

  /** Forgets a given-up message once it was dropped from the inbox. */
  forget(session: string, id: string): void {
    const of = this.given.get(session);
    of?.delete(id);
    if (of?.size === 0) this.given.delete(session);
  }

  private take(session: string, id: string): QueuedWaiter | undefined {
    const of = this.waiting.get(session);
    const waiter = of?.get(id);
    if (!waiter) return undefined;
    of!.delete(id);
    if (of!.size === 0) this.waiting.delete(session);
    return waiter;
  }
}
