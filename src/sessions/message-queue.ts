import { hasLeases, hasMessageInbox } from '../persistence/store-supports.js';
import type { SessionLog } from '../actors/session-log.js';
import { queuesWhileBusy, type WhileBusy } from '../core/busy-policy.js';
import type { Clock } from '../core/clock.js';
import { RunCancelledError } from '../errors/run-errors.js';
import { RunInProgressError, RunPausedError } from '../errors/session-errors.js';
import { MessageQueuedError } from '../errors/message-queued-error.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import type { SessionAction } from '../actions/session-action.js';
import { queuedOptions } from '../actions/message.js';
import {
  QueuedMessageGone,
  type MessageInbox,
  type QueuedMessage,
} from '../persistence/message-inbox.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { cacheKey } from '../session-host/session-cache.js';
import { LeaseToldInbox } from './lease-told-inbox.js';
import { checkedItems, storedMessage } from './stored-message.js';
import { checkQueuedMessageId } from './queued-message-check.js';
import type { BusyRuns } from './busy-runs.js';

/** What a runtime lends its message queue. */
export interface MessageQueueParts {
  store: SessionStore;
  clock: Clock;
  busy: BusyRuns;
  /** The agent's own `whileBusy` (its `'steer'` makes its runs read the inbox each turn). */
  agentPolicy: WhileBusy | undefined;
  /** Whether this process executes a run of the session now. */
  executing(key: SessionKey): boolean;
  /** The runtime's `execute`. */
  execute<R>(key: SessionKey, action: SessionAction<R>): Promise<R>;
  /** Whether the runtime's session cache holds the session (it ran or read it lately). */
  cached(key: SessionKey): boolean;
  /** Whether the runtime's runs hold the session's lease (a store that keeps leases). */
  leased: boolean;
}

/**
 * The durable side of `whileBusy: 'queue' | 'steer'` (see `WhileBusy`): a message sent while
 * the session's run is busy goes to the session's message inbox in the store; when the run
 * ends, the runtime takes the inbox's messages one at a time, in order, each as a run whose
 * first save removes it from the inbox (`SessionCommit.dequeued`), so each is answered
 * exactly once, also after a crash (recovery, or the next run of the session, takes it) and
 * from another process (whoever runs the session next takes it). A caller in this process
 * awaits its message's answer; a caller whose session runs in another process gets
 * `MessageQueuedError`. A `'steer'` message is taken by the running run before its next model
 * call when that run reads the inbox (this process holds a steer for it, or the agent's own
 * policy is `'steer'`); else it becomes the next run.
 */
export class MessageQueue {
  private readonly inbox: (SessionStore & MessageInbox) | undefined;
  /** The sessions whose inbox this runtime is taking now, and those to read again after. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** Whether the store is shared by processes (a message may come from anywhere). */
  private readonly shared: boolean;
  /** On a store shared by processes: what the leases of its runs tell of the inbox. */
  readonly byLease: LeaseToldInbox | undefined;

  constructor(private readonly parts: MessageQueueParts) {
    const { store } = parts;
    this.inbox = hasMessageInbox(store) ? store : undefined;
    this.shared = hasLeases(store) && store.leasesInProcess !== true;
    this.byLease =
      this.inbox && this.shared
        ? new LeaseToldInbox(
            this.inbox,
            (key) => this.draining.get(cacheKey(key)) ?? this.drain(key),
          )
        : undefined;
  }

  /** Whether `action`, refused by a busy session, is stored in the inbox. */
  queues(action: SessionAction<unknown>): boolean {
    return (
      this.inbox !== undefined &&
      queuesWhileBusy(action.whileBusy) &&
      action.message !== undefined &&
      action.fromInbox === undefined
    );
  }

  /**
   * Asked as `action`'s run starts: whether the session's inbox is read after it ends (the
   * returned check, made then), or not (`undefined`). On a store shared by processes it is read
   * unless the release of the run's lease told that nothing was queued (`LeaseReleased`).
   */
  drainsAfter(key: SessionKey, action: SessionAction<unknown>): (() => boolean) | undefined {
    if (!this.inbox) return undefined;
    const session = cacheKey(key);
    const always =
      queuesWhileBusy(action.whileBusy) ||
      action.fromInbox !== undefined ||
      queuesWhileBusy(this.parts.agentPolicy) ||
      this.parts.busy.waiters.has(session);
    if (!always && !this.shared) return undefined;
    const byLease = this.byLease;
    return () => (byLease?.readAfter(session) ?? true) || always; // what it told: used up
  }

  /**
   * Stores a message sent while this process executes the session's run; resolves with its
   * answer once a run took it (a steer: the running run's result).
   */
  async queueHere<R>(key: SessionKey, action: SessionAction<R>): Promise<R> {
    const own = action.observe?.signal;
    if (own?.aborted) throw new RunCancelledError({ sessionId: key.sessionId });
    const { waiters } = this.parts.busy;
    const session = cacheKey(key);
    const stored = this.store(key, action);
    const registered = stored.then((message) => waiters.add(session, message, action));
    waiters.registering(session, registered);
    const waiter = await registered;
    if (own) {
      const onAbort = (): void => {
        // Not taken yet: dropped, never answered (a run that took it is cancelled by `own`).
        if (!waiters.cancel(session, waiter.message.id)) return;
        const { id } = waiter.message;
        void this.inbox!.dropQueuedMessage(key, id).then(
          () => waiters.forget(session, id), // gone: no reader of the inbox will meet it
          () => undefined, // kept: a reader drops it when it meets it
        );
        waiter.reject(new RunCancelledError({ sessionId: key.sessionId }));
      };
      if (own.aborted) onAbort();
      else {
        own.addEventListener('abort', onAbort, { once: true });
        void waiter.answer.finally(() => own.removeEventListener('abort', onAbort)).catch(noop);
      }
    }
    // The run may have ended while the message was stored: then nobody would take it.
    if (!this.parts.executing(key)) void this.drain(key);
    return waiter.answer as Promise<R>;
  }

  /**
   * Stores a message sent while another process runs the session and raises
   * `MessageQueuedError`: that process (or the next to run the session) answers it.
   */
  async queueElsewhere(key: SessionKey, action: SessionAction<unknown>): Promise<never> {
    const message = await this.store(key, action);
    // That run may have ended while the message was stored: take it here then.
    void this.drain(key);
    throw new MessageQueuedError(key.sessionId, message.id, message.kind);
  }

  /** Stores `action`'s message; its own id, answered or waiting already, stores nothing. */
  private async store(key: SessionKey, action: SessionAction<unknown>): Promise<QueuedMessage> {
    const message = action.message!;
    const { items } = message;
    const { messageId } = message.options;
    if (messageId !== undefined) await checkQueuedMessageId(this.inbox!, key, messageId);
    const options = queuedOptions(message);
    const kind = action.whileBusy === 'steer' ? 'steer' : 'queue';
    const at = this.parts.clock.now();
    return this.inbox!.queueMessage({ key, kind, items, options, at });
  }

  /**
   * Takes the session's queued messages, one run each, in order, until none is left or the
   * session is busy (whoever runs it takes the rest). Resolves when done; never rejects.
   */
  drain(key: SessionKey): Promise<void> {
    const session = cacheKey(key);
    const running = this.draining.get(session);
    if (running) {
      this.again.add(session);
      return running;
    }
    if (!this.inbox) return Promise.resolve();
    const drained = this.drainLoop(key, session)
      .catch(noop)
      .finally(() => {
        this.draining.delete(session);
        if (this.again.delete(session)) void this.drain(key);
      });
    this.draining.set(session, drained);
    return drained;
  }

  /**
   * Before a message runs on a session no run of this process executes: the messages queued
   * for it earlier (left by a process that died, or by a run that ended as they came) are
   * answered first, in order, so a new message never overtakes them. One inbox read, skipped
   * on a store one process holds for a session in the runtime's cache (this runtime has run or
   * read it since the store opened, and what it queued since, it took when the run ended), and
   * on a store shared by processes whose leases the runs hold: there the run checks under its
   * lease (`underLease`), whose grant tells whether messages are queued.
   */
  async ahead(key: SessionKey, action: SessionAction<unknown>): Promise<void> {
    if (!this.inbox || action.message === undefined || action.fromInbox !== undefined) return;
    const running = this.draining.get(cacheKey(key));
    if (running) return running;
    if (this.shared ? this.parts.leased : this.parts.cached(key)) return;
    const [first] = await this.inbox.queuedMessages(key, { limit: 1 });
    if (first) await this.drain(key);
  }

  /** Whether this runtime is taking the session's inbox now. */
  isDraining(key: SessionKey): boolean {
    return this.draining.has(cacheKey(key));
  }

  private async drainLoop(key: SessionKey, session: string): Promise<void> {
    const { waiters } = this.parts.busy;
    for (;;) {
      this.again.delete(session);
      if (this.parts.executing(key)) return; // its end reads the inbox again
      await waiters.registered(session);
      const waiting = waiters.ids(session); // stored before the read
      const [next] = await this.inbox!.queuedMessages(key, { limit: 1 });
      if (!next) {
        // Gone from the inbox, and no run here took them: another process's run did (as its
        // steers, or as its next runs), which answers them.
        waiters.answeredElsewhere(key.sessionId, session, waiting);
        return;
      }
      if (waiters.cancelled(session, next.id)) {
        await this.inbox!.dropQueuedMessage(key, next.id);
        waiters.forget(session, next.id);
        continue;
      }
      const waiter = waiters.get(session, next.id);
      const action = waiter ? waiter.action : storedMessage(next);
      try {
        const taken = { ...action, whileBusy: 'reject' as const, fromInbox: next };
        const result = await this.parts.execute(key, taken);
        waiters.settle(session, next.id, (w) => w.resolve(result));
      } catch (error) {
        if (error instanceof QueuedMessageGone) {
          // Taken by another run (a steer elsewhere, another process): answered there.
          waiters.answeredElsewhere(key.sessionId, session, [next.id]);
          continue;
        }
        if (error instanceof RunInProgressError) {
          if (error.elsewhere) {
            // Another process runs the session: it takes them all, answers included.
            waiters.answeredElsewhere(key.sessionId, session, waiters.ids(session));
          }
          return;
        }
        if (error instanceof RunPausedError) {
          // Taken after the paused run goes on (on a shared store, maybe by another process).
          if (this.shared) waiters.leftToOthers(key.sessionId, session);
          return;
        }
        if (waiter || error instanceof MessageAnsweredError) {
          // Refused before it was taken (else its run failed): its caller gets the error. A
          // message id the session answered meanwhile (its twin ran first): never run.
          await this.inbox!.dropQueuedMessage(key, next.id);
          waiters.settle(session, next.id, (w) => w.reject(error));
          continue;
        }
        if (this.shared) waiters.leftToOthers(key.sessionId, session);
        return; // left in the inbox for the next run of the session
      }
    }
  }

  /**
   * What a run of the session reads before each model call (its steers), if it reads at
   * all: this process holds a steer for the session, or the agent's own policy is `'steer'`.
   */
  steerFor(key: SessionKey): ((log: SessionLog) => Promise<void> | undefined) | undefined {
    const inbox = this.inbox;
    if (!inbox) return undefined;
    const session = cacheKey(key);
    const { waiters } = this.parts.busy;
    const always = this.parts.agentPolicy === 'steer';
    const take = async (log: SessionLog): Promise<void> => {
      await waiters.registered(session);
      for (const message of await inbox.queuedMessages(key)) {
        if (message.kind !== 'steer' || log.took(message.id)) continue;
        if (waiters.cancelled(session, message.id)) continue;
        log.take(message.id, checkedItems(message));
        // Its caller here gets the result of the run that took it.
        waiters.settle(session, message.id, (w) => this.parts.busy.follow(session, w));
      }
    };
    // Nothing to read (no steer held here, the agent's policy another): no promise at all.
    return (log) => (always || waiters.steers(session) ? take(log) : undefined);
  }
}

const noop = (): void => undefined;
