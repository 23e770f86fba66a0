/** A LISTEN connection as `PostgresDatabase.listen` opens it. */
export interface ListenConnection {
  close(): Promise<void>;
}

/** What a LISTEN connection hands on: the channel of each notification, and its payload. */
export type OnNotify = (channel: string, payload: string) => void;

/** Opens a LISTEN connection: `onNotify` per notification, `onLost` once when it breaks. */
export type OpenListen = (
  onNotify: OnNotify,
  onLost: (error: unknown) => void,
) => Promise<ListenConnection>;

/** One watcher of a shared subscription. */
interface Watcher {
  onNotify: OnNotify;
  onLost(error: unknown): void;
}

/** One LISTEN connection and the watchers it serves. */
interface Subscription {
  readonly watchers: Set<Watcher>;
  readonly opened: Promise<ListenConnection>;
}

/**
 * One LISTEN connection for every watcher of a store's channels in this process (the approval
 * scheduler and the cancel watch of each runtime executing runs on the decision inbox's
 * channel, `agent.attach`'s session watches on the saves channel): the first watcher opens it,
 * each later one joins it, the last one to close ends it; each watcher hears every
 * notification with its channel. When it breaks, each of its watchers hears `onLost` once (and
 * watches again, or polls); the next watcher opens a new one.
 */
export class SharedListen {
  private current: Subscription | undefined;

  constructor(private readonly open: OpenListen) {}

  /** Joins (or opens) the subscription; rejects as `open` does if it cannot be had. */
  async watch(onNotify: OnNotify, onLost: (error: unknown) => void): Promise<ListenConnection> {
    const watcher: Watcher = { onNotify, onLost };
    const subscription = (this.current ??= this.subscribe());
    subscription.watchers.add(watcher);
    try {
      await subscription.opened;
    } catch (error) {
      subscription.watchers.delete(watcher);
      throw error;
    }
    return { close: () => this.leave(subscription, watcher) };
  }

  private subscribe(): Subscription {
    const watchers = new Set<Watcher>();
    const opened = this.open(
      (channel, payload) => {
        for (const watcher of [...watchers]) watcher.onNotify(channel, payload);
      },
      (error) => {
        if (this.current === subscription) this.current = undefined;
        const lost = [...watchers];
        watchers.clear();
        for (const watcher of lost) watcher.onLost(error);
      },
    );
    const subscription: Subscription = { watchers, opened };
    // A failure to open is each joined watcher's rejection; the next watcher tries again.
    opened.catch(() => {
      if (this.current === subscription) this.current = undefined;
    });
    return subscription;
  }

  private async leave(subscription: Subscription, watcher: Watcher): Promise<void> {
    if (!subscription.watchers.delete(watcher) || subscription.watchers.size > 0) return;
    if (this.current === subscription) this.current = undefined;
    await (await subscription.opened).close();
  }
}
