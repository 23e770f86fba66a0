import type { SessionAction } from '../actions/session-action.js';
import type { MessageInbox } from '../persistence/message-inbox.js';
import type { LeaseReleased, SessionLease } from '../persistence/session-leases.js';
import type { SessionKey } from '../persistence/session-store.js';
import { cacheKey } from '../session-host/session-cache.js';

/**
 * What a run of a new message raises under its lease when messages were queued for the
 * session before it (`LeaseToldInbox.underLease`): they are taken first.
 */
class QueuedAhead extends Error {
  constructor() {
    super('messages queued earlier go first');
    this.name = 'QueuedAhead';
  }
}

/**
 * A session's message inbox on a store shared by processes, as the leases of its runs tell it
 * (`SessionLease.queued`, `LeaseReleased`): a new message reads the inbox neither before its
 * run (the grant of the lease tells whether messages are queued: it lets them go first) nor
 * after (the release tells whether any came meanwhile: they are taken then). A store whose
 * leases tell nothing: one read under the lease, and one after each run.
 */
export class LeaseToldInbox {
  /** What the last lease release of each session told: queued or not. */
  private readonly told = new Map<string, boolean>();
  /** Actions run again after the messages queued before them (they do not yield twice). */
  private readonly yielded = new WeakSet<SessionAction<unknown>>();

  /**
   * @param inbox the store's inbox
   * @param drained takes the session's queued messages (or waits for the take under way)
   */
  constructor(
    private readonly inbox: MessageInbox,
    private readonly drained: (key: SessionKey) => Promise<void>,
  ) {}

  /**
   * Under the run's lease, before anything is loaded: a new message lets the messages queued
   * for the session before it go first. The run yields (`QueuedAhead`) when the lease tells
   * there are some, or (a lease that does not tell) when one inbox read finds one. `action` is
   * the one `execute` was given.
   */
  underLease(
    key: SessionKey,
    action: SessionAction<unknown>,
    lease: SessionLease,
  ): Promise<void> | undefined {
    this.told.delete(cacheKey(key));
    if (this.yielded.delete(action)) return undefined;
    if (action.message === undefined || action.fromInbox !== undefined) return undefined;
    if (lease.queued === false) return undefined;
    if (lease.queued === true) throw new QueuedAhead();
    return this.inbox.queuedMessages(key, { limit: 1 }).then(([first]) => {
      if (first) throw new QueuedAhead();
    });
  }

  /** What the release of a run's lease told. */
  released(key: SessionKey, told: LeaseReleased | void): void {
    if (told) this.told.set(cacheKey(key), told.queued);
  }

  /** Whether the session's inbox is read after its run: not when its release told it empty. */
  readAfter(session: string): boolean {
    const told = this.told.get(session);
    this.told.delete(session);
    return told !== false;
  }

  /**
   * `running`, or, when `action` yielded to messages queued before it (`underLease`), `again`
   * (the action run once more) once those were taken; it does not yield again.
   */
  afterQueued<R>(
    key: SessionKey,
    action: SessionAction<R>,
    running: Promise<R>,
    again: () => Promise<R>,
  ): Promise<R> {
    return running.catch(async (error: unknown) => {
      if (!(error instanceof QueuedAhead)) throw error;
      await this.drained(key);
      this.yielded.add(action);
      return again();
    });
  }
}
