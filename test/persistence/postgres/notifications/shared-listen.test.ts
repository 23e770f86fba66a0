import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../../src/index.js';
import {
  SharedListen,
  type LingerTimer,
  type OpenListen,
} from '../../../../src/persistence/postgres/notifications/shared-listen.js';

/** A LISTEN opener that counts its connections and lets the test notify, break or refuse them. */
function fakeListen() {
  const connections: {
    notify(): void;
    lose(error: unknown): void;
    closed: boolean;
    /** Whether its socket keeps the process alive. */
    held: boolean;
  }[] = [];
  let refuse: Error | undefined;
  const open: OpenListen = (onNotify, onLost) => {
    if (refuse) return Promise.reject(refuse);
    const connection = {
      notify: () => onNotify('c', ''),
      lose: onLost,
      closed: false,
      held: true,
    };
    connections.push(connection);
    return Promise.resolve({
      close: () => {
        connection.closed = true;
        return Promise.resolve();
      },
      hold: (hold: boolean) => {
        connection.held = hold;
      },
    });
  };
  return {
    open,
    connections,
    refuse: (error: Error | undefined) => {
      refuse = error;
    },
  };
}

/** The linger's timer, driven by the test: `fire()` ends the pending wait as its time would. */
/** A watcher that does nothing with what it hears: for tests of the connection itself. */
function watchQuietly(shared: SharedListen) {
  return shared.watch(
    () => undefined,
    () => undefined,
  );
}

function fakeTimer() {
  const pending = new Set<{ ms: number; then: () => void }>();
  const timer: LingerTimer = (ms, then) => {
    const wait = { ms, then };
    pending.add(wait);
    return () => pending.delete(wait);
  };
  return {
    timer,
    pending: () => [...pending].map((w) => w.ms),
    fire: () => {
      for (const wait of [...pending]) {
        pending.delete(wait);
        wait.then();
      }
    },
  };
}

describe('SharedListen: one LISTEN connection for every watcher of a store', () => {
  it('the first watcher opens it, the others join, each hears every notification, the last to close ends it (no linger)', async () => {
    const fake = fakeListen();
    const shared = new SharedListen(fake.open, 0);
    const heard: string[] = [];
    const a = await shared.watch(
      () => heard.push('a'),
      () => undefined,
    );
    const b = await shared.watch(
      () => heard.push('b'),
      () => undefined,
    );
    expect(fake.connections).toHaveLength(1);
    fake.connections[0]!.notify();
    expect(heard).toEqual(['a', 'b']);
    await a.close();
    await a.close(); // twice: nothing more
    expect(fake.connections[0]!.closed).toBe(false);
    fake.connections[0]!.notify();
    expect(heard).toEqual(['a', 'b', 'b']);
    await b.close();
    expect(fake.connections[0]!.closed).toBe(true);
    // A later watcher opens a new one.
    const c = await watchQuietly(shared);
    expect(fake.connections).toHaveLength(2);
    await c.close();
  });

  it("a lost connection is each watcher's onLost once; the next watcher opens a new one", async () => {
    const fake = fakeListen();
    const shared = new SharedListen(fake.open, 0);
    const lost: string[] = [];
    const a = await shared.watch(
      () => undefined,
      () => lost.push('a'),
    );
    await shared.watch(
      () => undefined,
      () => lost.push('b'),
    );
    fake.connections[0]!.lose(new Error('cut'));
    fake.connections[0]!.lose(new Error('cut again'));
    expect(lost).toEqual(['a', 'b']);
    await a.close(); // after the loss: nothing to close
    const c = await shared.watch(
      () => undefined,
      () => lost.push('c'),
    );
    expect(fake.connections).toHaveLength(2);
    await c.close();
    expect(fake.connections[1]!.closed).toBe(true);
  });

  it('a connection that cannot be had rejects each watcher waiting for it; a later watch tries again', async () => {
    const fake = fakeListen();
    const shared = new SharedListen(fake.open, 0);
    fake.refuse(new Error('no LISTEN here'));
    await expect(watchQuietly(shared)).rejects.toThrow('no LISTEN here');
    fake.refuse(undefined);
    const a = await watchQuietly(shared);
    expect(fake.connections).toHaveLength(1);
    await a.close();
  });

  it('unused, it lingers unheld: a watcher joining meanwhile reuses it; unused for the linger, it ends', async () => {
    const fake = fakeListen();
    const linger = fakeTimer();
    const shared = new SharedListen(fake.open, 5_000, linger.timer);
    const a = await watchQuietly(shared);
    expect(linger.pending()).toEqual([]);
    await a.close();
    // Back-to-back watches (runs one after another): the same connection, not held meanwhile.
    expect(fake.connections[0]).toMatchObject({ closed: false, held: false });
    expect(linger.pending()).toEqual([5_000]);
    const b = await watchQuietly(shared);
    expect(fake.connections).toHaveLength(1);
    expect(fake.connections[0]).toMatchObject({ closed: false, held: true });
    expect(linger.pending()).toEqual([]); // its linger was cancelled
    await b.close();
    linger.fire();
    expect(fake.connections[0]!.closed).toBe(true);
    const c = await watchQuietly(shared);
    expect(fake.connections).toHaveLength(2);
    await c.close();
  });

  it('an idle watcher hears every notification but holds nothing: it hears onLost when the linger ends', async () => {
    const fake = fakeListen();
    const linger = fakeTimer();
    const shared = new SharedListen(fake.open, 5_000, linger.timer);
    const heard: string[] = [];
    const lost: unknown[] = [];
    const idle = await shared.watch(
      () => heard.push('idle'),
      (error) => lost.push(error),
    );
    const busy = await shared.watch(
      () => heard.push('busy'),
      () => lost.push('busy'),
    );
    idle.idle(true);
    expect(fake.connections[0]!.held).toBe(true); // `busy` needs it
    expect(linger.pending()).toEqual([]);
    await busy.close();
    expect(fake.connections[0]!.held).toBe(false);
    fake.connections[0]!.notify();
    expect(heard).toEqual(['idle']);
    idle.idle(false); // a run starts: held again, no linger
    expect(fake.connections[0]!.held).toBe(true);
    expect(linger.pending()).toEqual([]);
    idle.idle(true);
    linger.fire();
    expect(lost).toHaveLength(1);
    expect(fake.connections[0]!.closed).toBe(true);
    idle.idle(false); // after its end: nothing
    expect(fake.connections).toHaveLength(1);
  });

  it('close() ends it at once, lingering or in use; a later watch is StoreUnavailableError', async () => {
    const fake = fakeListen();
    const linger = fakeTimer();
    const shared = new SharedListen(fake.open, 5_000, linger.timer);
    const lost: string[] = [];
    const a = await shared.watch(
      () => undefined,
      () => lost.push('a'),
    );
    a.idle(true);
    expect(linger.pending()).toEqual([5_000]);
    await shared.close();
    expect(fake.connections[0]!.closed).toBe(true);
    expect(lost).toEqual(['a']);
    expect(linger.pending()).toEqual([]); // no timer left behind
    await expect(watchQuietly(shared)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(fake.connections).toHaveLength(1);
  });
});
