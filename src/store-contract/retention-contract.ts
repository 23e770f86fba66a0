import { strict as assert } from 'node:assert';
import { SessionConflictError, SessionNotFoundError } from '../errors/session-errors.js';
import { emptyTotals } from '../persistence/session-store.js';
import { equal, matches, rejects } from './contract-assert.js';
import type { storeTest } from './contract-harness.js';
import type { SessionKey } from '../persistence/session-store.js';
import { commitOn, entry, msg, newSession, reply, usage } from './contract-fixtures.js';

/** The body of one case of the contract, given the opened store. */
type CaseBody = Parameters<typeof storeTest>[3];

/**
 * What a store keeps and counts: tombstones, purge, and per-user usage totals.
 * Part of {@link sessionStoreContract}, inside its `describe`.
 */
export function retentionCases(
  test: (title: string, body: CaseBody) => void,
  alice: SessionKey,
): void {
  test('keeps a tombstone: a late write after the delete loses', async (harness) => {
    const { store } = harness;
    const v1 = await store.create(newSession('s1', 'alice'));
    const v2 = await store.save(commitOn(v1, [msg('a')]));
    // The delete, and a writer still holding version 2 and one still holding version 1.
    const deleted = await store.save(commitOn(v2, [], [], { status: 'deleted' }));
    await rejects(store.save(commitOn(v2, [msg('late')])), {
      name: 'SessionConflictError',
      actualVersion: 3,
    });
    await rejects(store.save(commitOn(v1, [msg('later')])), SessionConflictError);
    // Even a writer that read the tombstone cannot revive it.
    await rejects(store.save(commitOn(deleted, [msg('revive')], [], { status: 'active' })), {
      name: 'SessionConflictError',
      expectedVersion: 3,
    });
    equal(await store.load(alice), deleted);
    equal(await store.readHistory(alice), [msg('a')]);
    matches(await store.list({ userId: 'alice', status: 'deleted' }), {
      sessions: [{ sessionId: 's1', version: 3 }],
    });
  });

  test('purges the record, listing, history and journal', async (harness) => {
    const { store } = harness;
    const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [msg('hi')]);
    await store.save(commitOn(v1, [reply('yo')], [entry('r1', 0), entry('r2', 3)]));
    await store.create(newSession('s10', 'alice'));
    await store.purge(alice);
    await rejects(store.load(alice), SessionNotFoundError);
    await rejects(store.readHistory(alice), SessionNotFoundError);
    assert.equal(await store.readJournal(alice, 'r1', 0), undefined);
    equal(await store.readRunJournal(alice, 'r2'), []);
    const listed = await store.list({ userId: 'alice' });
    equal(
      listed.sessions.map((s) => s.sessionId),
      ['s10'],
    );
    await rejects(store.purge(alice), SessionNotFoundError);
    matches(await store.create(newSession('s1', 'alice')), { version: 1 });
    equal(await store.readHistory(alice), []);
  });

  test('accumulates per-user usage totals in the same write', async (harness) => {
    const { store } = harness;
    let rec = await store.create(newSession('s1', 'alice'));
    rec = await store.save(commitOn(rec, [msg('a')], [], { userUsageDelta: usage(1, 10, 0.5) }));
    rec = await store.save(commitOn(rec, [msg('b')], [], { userUsageDelta: usage(2, 5, 0.25) }));
    await store.save(commitOn(rec, [msg('c')]));
    const other = await store.create(newSession('s2', 'alice'));
    await store.save(commitOn(other, [], [], { userUsageDelta: usage(1, 1, 1) }));
    const anon = await store.create(newSession('s3'));
    await store.save(commitOn(anon, [], [], { userUsageDelta: usage(7, 7, 7) }));
    equal(await store.userUsage('alice'), usage(4, 16, 1.75));
    equal(await store.userUsage(undefined), usage(7, 7, 7));
    equal(await store.userUsage('bob'), emptyTotals());
    matches(await store.loadForUpdate(alice), {
      userUsage: usage(4, 16, 1.75),
    });
    // A conflicting save adds nothing.
    await rejects(
      store.save(commitOn(other, [], [], { userUsageDelta: usage(9, 9, 9) })),
      SessionConflictError,
    );
    equal(await store.userUsage('alice'), usage(4, 16, 1.75));
  });

  test('adds costs up without float noise (0.1 + 0.2 is 0.3)', async (harness) => {
    const { store } = harness;
    let rec = await store.create(newSession('s1', 'alice'));
    rec = await store.save(commitOn(rec, [msg('a')], [], { userUsageDelta: usage(1, 1, 0.1) }));
    await store.save(commitOn(rec, [msg('b')], [], { userUsageDelta: usage(1, 1, 0.2) }));
    assert.equal(String((await store.userUsage('alice')).costUsd), '0.3');
  });
}
