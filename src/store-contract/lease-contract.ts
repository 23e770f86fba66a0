import { hasLeases, supportsCapability } from '../persistence/store-supports.js';
import { strict as assert } from 'node:assert';
import { LeaseLostError } from '../errors/session-errors.js';
import type { SessionLease, SessionLeases } from '../persistence/session-leases.js';
import { equal, matches, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { commitOn, entry, msg, newSession } from './contract-fixtures.js';

const TTL = 10_000;

/** A lease as `leaseOf` reads it back: without what its grant told of the inbox (`queued`). */
const held = ({ queued: _queued, inboxMark: _mark, ...lease }: SessionLease): SessionLease => lease;

/** The leases part of the store contract: one writer per session, fenced by token. */
export function leaseContract(tests: ContractTests, { name, open }: StoreContractOptions): void {
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: leases`, () => {
    const alice = { sessionId: 's1', userId: 'alice' };
    test('keeps one writer per session with leases, fencing a taken-over owner', async (harness, clock) => {
      const { store } = harness;
      if (!hasLeases(store)) throw new Error(`${name} must implement SessionLeases`);
      const leases: SessionLeases = store;
      const v1 = await store.create(newSession('s1', 'alice'));
      const first = await leases.acquireLease(alice, 'worker-a', TTL);
      equal(first, {
        sessionId: 's1',
        userId: 'alice',
        owner: 'worker-a',
        token: first?.token,
        expiresAt: clock.now() + TTL,
        // A store that tells of its message inbox with the grant: nothing is queued.
        ...(first?.queued === undefined ? {} : { queued: false, inboxMark: first.inboxMark }),
      });
      assert.equal(typeof first?.token, 'number');
      const a = first!;
      assert.equal(await leases.acquireLease(alice, 'worker-b', TTL), undefined);
      // Another user's session of the same id is another lease.
      matches(await leases.acquireLease({ sessionId: 's1', userId: 'bob' }, 'worker-b', TTL), {
        owner: 'worker-b',
      });
      matches(await leases.acquireLease(alice, 'worker-a', TTL), {
        token: a.token,
      });
      clock.advance(TTL / 2);
      const renewed = await leases.renewLease(a, TTL);
      matches(renewed, { token: a.token, expiresAt: clock.now() + TTL });
      const v2 = await store.save(commitOn(v1, [msg('by a')], [], { lease: a }));
      // a stops renewing; its lease expires and b takes over.
      clock.advance(TTL);
      equal(await leases.expiredLeases({ userId: 'alice', expiredBefore: clock.now() }), [
        { sessionId: 's1', userId: 'alice' },
      ]);
      equal(
        await leases.expiredLeases({ userId: 'bob', expiredBefore: clock.now() - TTL * 10 }),
        [],
      );
      equal(await leases.expiredLeases({ expiredBefore: clock.now() }), []);
      const b = (await leases.acquireLease(alice, 'worker-b', TTL))!;
      assert.ok(b.token > a.token);
      // a's late write is refused even at the right version; nothing is written.
      const late = store.save(commitOn(v2, [msg('late a')], [entry('r', 0)], { lease: a }));
      await rejects(late, LeaseLostError);
      await rejects(late, { code: 'LEASE_LOST', owner: 'worker-a' });
      equal(await store.load(alice), v2);
      assert.equal(await store.readJournal(alice, 'r', 0), undefined);
      assert.equal(await leases.renewLease(a, TTL), undefined);
      await leases.releaseLease(a); // a's release leaves b's lease alone
      assert.equal(await leases.acquireLease(alice, 'worker-c', TTL), undefined);
      const v3 = await store.save(commitOn(v2, [msg('by b')], [], { lease: b }));
      assert.equal(v3.version, 3);
      await leases.releaseLease(b);
      clock.advance(TTL * 2);
      // Released leases are not expired runs.
      equal(await leases.expiredLeases({ userId: 'alice', expiredBefore: clock.now() }), []);
      const c = await leases.acquireLease(alice, 'worker-c', TTL);
      assert.ok(c !== undefined && c.token > b.token, 'a new holder gets a greater token');
      await rejects(store.save(commitOn(v3, [], [], { lease: b })), LeaseLostError);
      await rejects(leases.acquireLease(alice, '', TTL), TypeError);
      await rejects(leases.acquireLease(alice, 'x', 0), TypeError);
    });
  });
}

/** Reading a lease back (`leaseOf`): how `getSession` tells a crashed run from a running one. */
export function leaseReadContract(
  tests: ContractTests,
  { name, open }: StoreContractOptions,
): void {
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: lease reads`, () => {
    const alice = { sessionId: 's1', userId: 'alice' };
    test('reads a session’s lease as it holds it: live, expired, released, or none', async (harness, clock) => {
      const { store } = harness;
      if (!hasLeases(store) || !supportsCapability(store, 'leaseReads')) {
        throw new Error(`${name} must implement leaseOf`);
      }
      const leases = store;
      assert.equal(await leases.leaseOf(alice), undefined);
      const a = (await leases.acquireLease(alice, 'worker-a', TTL))!;
      const live = { ...held(a), released: false, expired: false };
      equal(await leases.leaseOf(alice), live);
      // the partition holds: bob's session of the same id has none
      assert.equal(await leases.leaseOf({ sessionId: 's1', userId: 'bob' }), undefined);
      clock.advance(TTL);
      equal(await leases.leaseOf(alice), { ...live, expired: true });
      const b = (await leases.acquireLease(alice, 'worker-b', TTL))!;
      await leases.releaseLease(b);
      equal(await leases.leaseOf(alice), {
        ...held(b),
        released: true,
        expired: false,
      });
    });
  });
}
