import { describe, expect, it } from 'vitest';
import { SharedListen, type OpenListen } from '../../src/persistence/postgres/shared-listen.js';

/** A LISTEN opener that counts its connections and lets the test notify, break or refuse them. */
function fakeListen() {
  const connections: { notify(): void; lose(error: unknown): void; closed: boolean }[] = [];
  let refuse: Error | undefined;
  const open: OpenListen = (onNotify, onLost) => {
    if (refuse) return Promise.reject(refuse);
    const connection = { notify: () => onNotify('c', ''), lose: onLost, closed: false };
    connections.push(connection);
    return Promise.resolve({
      close: () => {
        connection.closed = true;
        return Promise.resolve();
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

describe('SharedListen: one LISTEN connection for every watcher of a store', () => {
  it('the first watcher opens it, the others join, each hears every notification, the last to close ends it', async () => {
    const fake = fakeListen();
    const shared = new SharedListen(fake.open);
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
    const c = await shared.watch(
      () => undefined,
      () => undefined,
    );
    expect(fake.connections).toHaveLength(2);
    await c.close();
  });

  it("a lost connection is each watcher's onLost once; the next watcher opens a new one", async () => {
    const fake = fakeListen();
    const shared = new SharedListen(fake.open);
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
    const shared = new SharedListen(fake.open);
    fake.refuse(new Error('no LISTEN here'));
    await expect(
      shared.watch(
        () => undefined,
        () => undefined,
      ),
    ).rejects.toThrow('no LISTEN here');
    fake.refuse(undefined);
    const a = await shared.watch(
      () => undefined,
      () => undefined,
    );
    expect(fake.connections).toHaveLength(1);
    await a.close();
  });
});
