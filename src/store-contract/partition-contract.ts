import { strict as assert } from 'node:assert';
import { SessionNotFoundError } from '../errors/session-errors.js';
import { equal, isEqual, matches, rejects } from './contract-assert.js';
import type { storeTest } from './contract-harness.js';
import { commitOn, entry, msg, newSession } from './contract-fixtures.js';

/** The body of one case of the contract, given the opened store. */
type CaseBody = Parameters<typeof storeTest>[3];

/**
 * Which sessions a user reaches: the userId partition and the listing with its paging.
 * Part of {@link sessionStoreContract}, inside its `describe`.
 */
export function partitionCases(test: (title: string, body: CaseBody) => void): void {
  test('partitions by userId: the anonymous bucket, "" and look-alike ids never meet', async (harness) => {
    const { store } = harness;
    const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
      msg('secret'),
    ]);
    await store.save(commitOn(v1, [], [entry('r', 0)]));
    const bob = { sessionId: 's1', userId: 'bob' };
    await rejects(store.load(bob), SessionNotFoundError);
    await rejects(store.readHistory(bob), SessionNotFoundError);
    assert.equal(await store.readJournal(bob, 'r', 0), undefined);
    equal(await store.readRunJournal(bob, 'r'), []);
    await rejects(store.purge(bob), SessionNotFoundError);
    equal(await store.list({ userId: 'bob' }), {
      sessions: [],
      nextCursor: undefined,
    });
    await store.create(newSession('s2'));
    await store.create(newSession('s3', ''));
    for (const userId of ['a', 'u:a', 'x!s!a', 'undefined', 'null']) {
      await rejects(store.load({ sessionId: 's2', userId }), SessionNotFoundError);
    }
    await rejects(store.load({ sessionId: 's2', userId: '' }), SessionNotFoundError);
    await rejects(store.load({ sessionId: 's3' }), SessionNotFoundError);
    matches(await store.load({ sessionId: 's3', userId: '' }), {
      userId: '',
    });
    matches(await store.list({ userId: '' }), {
      sessions: [{ sessionId: 's3', userId: '' }],
    });
    const anonymous = await store.list();
    equal(
      anonymous.sessions.map((s) => s.sessionId),
      ['s2'],
    );
  });

  test('lists one user with paging and a status filter, following saves', async (harness) => {
    const { store } = harness;
    const statuses = ['active', 'completed', 'active', 'failed', 'active'] as const;
    for (const [i, status] of statuses.entries()) {
      await store.create(newSession(`c${i}`, 'carol', status));
    }
    await store.create(newSession('d0', 'dave'));
    const page1 = await store.list({ userId: 'carol', limit: 2 });
    equal(
      page1.sessions.map((s) => s.sessionId),
      ['c0', 'c1'],
    );
    assert.ok(!('snapshot' in page1.sessions[0]!), 'a listing holds no snapshot');
    const page2 = await store.list({ userId: 'carol', limit: 2, cursor: page1.nextCursor });
    equal(
      page2.sessions.map((s) => s.sessionId),
      ['c2', 'c3'],
    );
    const page3 = await store.list({ userId: 'carol', limit: 2, cursor: page2.nextCursor });
    matches(page3, { sessions: [{ sessionId: 'c4' }] });
    assert.equal(page3.nextCursor, undefined);
    const active1 = await store.list({ userId: 'carol', status: 'active', limit: 2 });
    equal(
      active1.sessions.map((s) => s.sessionId),
      ['c0', 'c2'],
    );
    const active2 = await store.list({
      userId: 'carol',
      status: 'active',
      limit: 2,
      cursor: active1.nextCursor,
    });
    matches(active2, { sessions: [{ sessionId: 'c4' }], nextCursor: undefined });
    await rejects(store.list({ userId: 'carol', limit: 0 }), TypeError);
    const c1 = await store.load({ sessionId: 'c1', userId: 'carol' });
    await store.save(commitOn(c1, [msg('x')], [], { status: 'active' }));
    const active = await store.list({ userId: 'carol', status: 'active' });
    const listed = active.sessions.map((s) => [s.sessionId, s.version, s.historyLength]);
    assert.ok(
      listed.some((row) => isEqual(row, ['c1', 2, 1])),
      'c1 is listed at version 2',
    );
  });
}
