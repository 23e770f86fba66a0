import { StoreUnavailableError } from '../../../errors/session-errors.js';

/** A LISTEN connection as `PostgresDatabase.listen` opens it. */
export interface ListenConnection {
  close(): Promise<void>;
  /** Whether its socket keeps the process alive (Node's `ref`/`unref`); absent: it always does. */
  hold?(hold: boolean): void;
}

/** A watcher's share of the store's LISTEN connection (`SharedListen.watch`). */
export interface SharedWatch {
  /** Leaves the connection. */
  close(): Promise<void>;
  /**
   * `true`: the watcher still hears every notification but needs none now (a runtime's cancel
   * watch between its runs), so it neither keeps the connection open past its linger nor the
   * process alive; `false`: it needs them again.
   */
  idle(idle: boolean): void;
}

/** What a LISTEN connection hands on: the channel of each notification, and its payload. */
export type OnNotify = (channel: string, payload: string) => void;

/** Opens a LISTEN connection: `onNotify` per notification, `onLost` once when it breaks. */
export type OpenListen = (
  onNotify: OnNotify,
  onLost: (error: unknown) => void,
) => Promise<ListenConnection>;

/** Calls `then` after `ms` (a timer that does not keep the process alive); returns its cancel. */
export type LingerTimer = (ms: number, then: () => void) => () => void;

/** How long the connection stays open once no watcher needs it. @default 10_000 */
export const DEFAULT_LINGER_MS = 10_000;

/** A real timer, unref'd: it never keeps the process alive. */
const unrefTimer: LingerTimer = (ms, then) => {
  const timer = setTimeout(then, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** One watcher of a shared subscription. */
interface Watcher {
  onNotify: OnNotify;
  onLost(error: unknown): void;
  idle: boolean;
}

/** One LISTEN connection and the watchers it serves. */
interface Subscription {
  readonly watchers: Set<Watcher>;
  readonly opened: Promise<ListenConnection>;
  /** Set once opened. */
  connection: ListenConnection | undefined;
  /** Whether some watcher needs it (its socket then keeps the process alive). */
  needed: boolean;
  /** Cancels the linger timer, while one runs. */
  lingering: (() => void) | undefined;
}

/**
 * One LISTEN connection for every watcher of a store's channels in this process (the approval
 * scheduler and the cancel watch of each runtime executing runs on the decision inbox's
 * channel, `agent.attach`'s session watches on the saves channel): the first watcher opens it,
 * each later one joins it; each watcher hears every notification with its channel. When it
 * breaks, each of its watchers hears `onLost` once (and watches again, or polls); the next
 * watcher opens a new one.
 *
 * Once no watcher needs it (each left or is idle) it lingers `lingerMs` before it ends (its
 * idle watchers then hear `onLost`): runs one after another (W1) reuse it instead of opening a
 * backend (TCP, authentication, LISTEN) per run, and the cancel watch, idle but listening
 * meanwhile, knows it missed nothing. Lingering it holds nothing of the process: its socket is
 * unref'd and its timer too, so a script that never closes its store still exits; the
 * store's `close` ends it at once. Why idle watchers rather than leaving and joining again: a
 * watcher away meanwhile would not know what it missed (another watcher, or none, heard it),
 * so it would read the inbox at every run. Why 10 s by default (the store's `listenLingerMs`):
 * the pool's own idle timeout; a real timer (unref'd) rather than the agent's clock, whose
 * system timers keep the process alive.
 */
export class SharedListen {
  private current: Subscription | undefined;
  private closed = false;

  constructor(
    private readonly open: OpenListen,
    private readonly lingerMs = DEFAULT_LINGER_MS,
    private readonly timer: LingerTimer = unrefTimer,
  ) {}

  /** Joins (or opens) the subscription; rejects as `open` does if it cannot be had. */
  async watch(onNotify: OnNotify, onLost: (error: unknown) => void): Promise<SharedWatch> {
    if (this.closed) throw new StoreUnavailableError('listen for notifications', 'it was closed');
    const watcher: Watcher = { onNotify, onLost, idle: false };
    const subscription = (this.current ??= this.subscribe());
    subscription.watchers.add(watcher);
    void this.settle(subscription);
    try {
      await subscription.opened;
    } catch (error) {
      subscription.watchers.delete(watcher);
      throw error;
    }
    return {
      close: () => this.leave(subscription, watcher),
      idle: (idle) => {
        if (watcher.idle === idle || !subscription.watchers.has(watcher)) return;
        watcher.idle = idle;
        void this.settle(subscription);
      },
    };
  }

  /** Ends the connection now (the store closes): its watchers hear `onLost`; no later watch. */
  async close(): Promise<void> {
    this.closed = true;
    const subscription = this.current;
    if (subscription) await this.end(subscription, new Error('the store was closed'));
  }

  private subscribe(): Subscription {
    const watchers = new Set<Watcher>();
    const opened = this.open(
      (channel, payload) => {
        for (const watcher of [...watchers]) watcher.onNotify(channel, payload);
      },
      (error) => this.lost(subscription, error),
    );
    const subscription: Subscription = {
      watchers,
      opened,
      connection: undefined,
      needed: true,
      lingering: undefined,
    };
    opened.then(
      (connection) => {
        subscription.connection = connection;
        if (!subscription.needed) connection.hold?.(false);
      },
      // A failure to open is each joined watcher's rejection; the next watcher tries again.
      () => {
        if (this.current === subscription) this.current = undefined;
      },
    );
    return subscription;
  }

  /** Whether a watcher needs the connection now: held and kept, or else lingering. */
  private settle(subscription: Subscription): Promise<void> | undefined {
    let needed = false;
    for (const watcher of subscription.watchers) needed ||= !watcher.idle;
    if (needed !== subscription.needed) {
      subscription.needed = needed;
      subscription.connection?.hold?.(needed);
    }
    if (needed) {
      subscription.lingering?.();
      subscription.lingering = undefined;
    } else if (!subscription.lingering) {
      const end = (): Promise<void> => this.end(subscription, new Error('lingered unused'));
      if (this.lingerMs <= 0) return end();
      subscription.lingering = this.timer(this.lingerMs, () => void end());
    }
    return undefined;
  }

  private async leave(subscription: Subscription, watcher: Watcher): Promise<void> {
    if (subscription.watchers.delete(watcher) && this.current === subscription) {
      await this.settle(subscription);
    }
  }

  /** The connection broke: each watcher hears it once. */
  private lost(subscription: Subscription, error: unknown): void {
    if (this.current === subscription) this.current = undefined;
    subscription.lingering?.();
    subscription.lingering = undefined;
    const lost = [...subscription.watchers];
    subscription.watchers.clear();
    for (const watcher of lost) watcher.onLost(error);
  }

  /** Ends the connection (its linger is over, or the store closes). */
  private async end(subscription: Subscription, why: Error): Promise<void> {
    if (this.current !== subscription) return;
    this.lost(subscription, why);
    const { connection } = subscription;
    await (connection ?? (await subscription.opened.catch(() => undefined)))?.close();
  }
}
