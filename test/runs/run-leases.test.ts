import { describe, it, expect } from 'vitest';
import { RunInProgressError } from '../../src/errors/session-errors.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import type { SessionLease } from '../../src/persistence/session-leases.js';
import { RunLeases } from '../../src/runs/run-lease.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { deferred, nextImmediate, until } from '../helpers/async.js';

const TTL = 9_000;
const a = { sessionId: 'a', userId: 'u1' };
const b = { sessionId: 'b', userId: 'u1' };

/** A memory store whose renewals are logged and can be made to fail or wait. */
class ObservedStore extends MemorySessionStore {
  readonly log: string[] = [];
  failNextRenewal = false;
  renewalGate: Promise<void> | undefined;

  override async renewLease(lease: SessionLease, ttlMs: number) {
    this.log.push(`renew ${lease.sessionId}`);
    if (this.failNextRenewal) {
      this.failNextRenewal = false;
      throw new Error('store unreachable');
    }
    if (this.renewalGate) await this.renewalGate;
    return super.renewLease(lease, ttlMs);
  }

  override async releaseLease(lease: SessionLease) {
    this.log.push(`release ${lease.sessionId}`);
    return super.releaseLease(lease);
  }
}

/** Runtime clock (renewal waits) and store clock (expiry), one store, owner `me`. */
function setup(storeClock = new FakeClock()) {
  const clock = new FakeClock(storeClock.now());
  const store = new ObservedStore({ clock: storeClock });
  const leases = new RunLeases(store, { owner: 'me', ttlMs: TTL, clock });
  /** Holds `key`'s lease until the returned `finish()`. */
  const hold = (key: typeof a) => {
    const done = deferred();
    const held = leases.holding(key, 'sendMessage', async (lease) => {
      await done.promise;
      return lease.sessionId;
    });
    return { held, finish: () => done.resolve() };
  };
  const free = async (key: typeof a) => (await store.acquireLease(key, 'other', TTL)) !== undefined;
  return { clock, storeClock, store, leases, hold, free };
}

/** Moves both clocks (same time) and lets the renewals run. */
async function advance(s: ReturnType<typeof setup>, ms: number): Promise<void> {
  s.storeClock.advance(ms);
  s.clock.advance(ms);
  for (let i = 0; i < 5; i++) await nextImmediate();
}

describe('RunLeases: one renewal wait for all the leases a runtime holds', () => {
  it('renews each lease held, taken at any time, so none expires while its action runs; then gives it up', async () => {
    const s = setup();
    const first = s.hold(a);
    await until(() => s.clock.pendingSleepers === 1);
    await advance(s, TTL / 6);
    const second = s.hold(b);
    await nextImmediate();
    // Still one wait for both.
    expect(s.clock.pendingSleepers).toBe(1);
    for (let i = 0; i < 5; i++) await advance(s, TTL / 3);
    // Past several TTLs: both leases live (another owner is refused), each renewed every tick.
    expect(await s.free(a)).toBe(false);
    expect(await s.free(b)).toBe(false);
    expect(s.store.log.filter((l) => l === 'renew a').length).toBe(5);
    expect(s.store.log.filter((l) => l === 'renew b').length).toBe(5);
    first.finish();
    await expect(first.held).resolves.toBe('a');
    expect(await s.free(a)).toBe(true);
    // b alone keeps the wait going.
    expect(s.clock.pendingSleepers).toBe(1);
    await advance(s, TTL / 3);
    expect(s.store.log.filter((l) => l === 'renew a').length).toBe(5);
    expect(s.store.log.filter((l) => l === 'renew b').length).toBe(6);
    second.finish();
    await expect(second.held).resolves.toBe('b');
    // Nothing held: no wait (no timer) is left pending.
    expect(s.clock.pendingSleepers).toBe(0);
    expect(await s.free(b)).toBe(true);
  });

  it('another owner’s live lease is RunInProgressError before the work runs', async () => {
    const s = setup();
    await s.store.acquireLease(a, 'other', TTL);
    let ran = false;
    const refused = s.leases.holding(a, 'sendMessage', async () => {
      ran = true;
    });
    await expect(refused).rejects.toBeInstanceOf(RunInProgressError);
    await expect(refused).rejects.toMatchObject({ elsewhere: true, sessionId: 'a' });
    expect(ran).toBe(false);
    expect(s.clock.pendingSleepers).toBe(0);
  });

  it('a renewal the store fails is tried again at the next tick; the work’s error is passed on after the release', async () => {
    const s = setup();
    const done = deferred();
    const held = s.leases.holding(a, 'sendMessage', async () => {
      await done.promise;
      throw new Error('the work failed');
    });
    await until(() => s.clock.pendingSleepers === 1);
    s.store.failNextRenewal = true;
    await advance(s, TTL / 3);
    expect(s.store.log).toEqual(['renew a']);
    await advance(s, TTL / 3);
    expect(s.store.log).toEqual(['renew a', 'renew a']);
    await advance(s, TTL / 3 + 1);
    // The first renewal failed, the second held: the lease lives past its first TTL.
    expect(await s.free(a)).toBe(false);
    done.resolve();
    await expect(held).rejects.toThrow('the work failed');
    expect(s.store.log.at(-1)).toBe('release a');
    expect(await s.free(a)).toBe(true);
  });

  it('a lease taken over is renewed no more, and its release leaves the new owner’s alone', async () => {
    const storeClock = new FakeClock();
    const s = setup(storeClock);
    const first = s.hold(a);
    await until(() => s.clock.pendingSleepers === 1);
    // This runtime hangs past the TTL (its clock stands still): another owner takes over.
    storeClock.advance(TTL + 1);
    expect(await s.free(a)).toBe(true);
    s.clock.advance(TTL / 3);
    await until(() => s.store.log.length === 1);
    for (let i = 0; i < 5; i++) await nextImmediate();
    // Lost: dropped from the renewals; nothing left to renew, no wait pending.
    expect(s.clock.pendingSleepers).toBe(0);
    first.finish();
    await expect(first.held).resolves.toBe('a');
    expect(s.store.log).toEqual(['renew a', 'release a']);
    // The other owner still holds it.
    expect(await s.store.acquireLease(a, 'third', TTL)).toBeUndefined();
  });

  it('an action that returns while its lease is being renewed releases it after the renewal', async () => {
    const s = setup();
    const first = s.hold(a);
    await until(() => s.clock.pendingSleepers === 1);
    const gate = deferred();
    s.store.renewalGate = gate.promise;
    await advance(s, TTL / 3);
    expect(s.store.log).toEqual(['renew a']);
    first.finish();
    for (let i = 0; i < 5; i++) await nextImmediate();
    // Not released while the renewal is under way (it would extend a released lease).
    expect(s.store.log).toEqual(['renew a']);
    gate.resolve();
    await expect(first.held).resolves.toBe('a');
    expect(s.store.log).toEqual(['renew a', 'release a']);
    expect(await s.free(a)).toBe(true);
    expect(s.clock.pendingSleepers).toBe(0);
  });
});
