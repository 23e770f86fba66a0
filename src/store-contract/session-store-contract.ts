import { strict as assert } from 'node:assert';
import {
  InvalidSessionRecordError,
  SessionConflictError,
  SessionNotFoundError,
} from '../errors/session-errors.js';
import { historyKey, recordKey } from '../persistence/session-keys.js';
import { emptyTotals } from '../persistence/session-store.js';
import { equal, matches, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { commitOn, entry, msg, newSession, reply } from './contract-fixtures.js';
import { partitionCases } from './partition-contract.js';
import { retentionCases } from './retention-contract.js';

/**
 * The core of the SessionStore contract (src/persistence/STORE-CONTRACT.md): versions,
 * history, journal and damage; partitions and listing (`partitionCases`), tombstones, purge
 * and usage totals (`retentionCases`).
 */
export function sessionStoreContract(
  tests: ContractTests,
  { name, open }: StoreContractOptions,
): void {
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: store contract`, () => {
    const alice = { sessionId: 's1', userId: 'alice' };

    test('creates at version 1, refuses a duplicate, loads what was created', async (harness) => {
      const { store } = harness;
      const created = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      assert.equal(created.version, 1);
      await rejects(store.create(newSession('s1', 'alice')), {
        name: 'SessionConflictError',
        expectedVersion: 0,
        actualVersion: undefined,
      });
      equal(await store.load(alice), created);
      equal(await store.loadForUpdate(alice), {
        record: created,
        userUsage: emptyTotals(),
      });
      equal(await store.readHistory(alice), [msg('hi')]);
      await rejects(store.create(newSession('s2'), [msg('x')]), TypeError);
    });

    test('saves at version + 1 and reads history ranges and journal ranges per run', async (harness) => {
      const { store } = harness;
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      const commit = commitOn(
        v1,
        [reply('hello'), msg('more')],
        [entry('run-1', 1), entry('run-1', 0), entry('run-2', 0)],
      );
      const v2 = await store.save(commit);
      equal(v2, { ...commit.record, version: 2 });
      equal(await store.load(alice), v2);
      equal(await store.readHistory(alice), [msg('hi'), reply('hello'), msg('more')]);
      equal(await store.readHistory(alice, 1, 2), [reply('hello')]);
      equal(await store.readHistory(alice, 2), [msg('more')]);
      equal(await store.readHistory(alice, 3), []);
      await rejects(store.readHistory(alice, -1), TypeError);
      equal(await store.readJournal(alice, 'run-1', 1), entry('run-1', 1));
      assert.equal(await store.readJournal(alice, 'run-1', 2), undefined);
      equal(await store.readRunJournal(alice, 'run-1'), [entry('run-1', 0), entry('run-1', 1)]);
      equal(await store.readRunJournal(alice, 'run-2'), [entry('run-2', 0)]);
      equal(await store.readRunJournal(alice, 'run'), []);
      // From a step on: what a reader following the run has not had.
      equal(await store.readRunJournal(alice, 'run-1', 1), [entry('run-1', 1)]);
      equal(await store.readRunJournal(alice, 'run-1', 2), []);
      await rejects(store.readRunJournal(alice, 'run-1', -1), TypeError);
      const v3 = await store.save(commitOn(v2, [reply('done')], [entry('run-1', 2)]));
      assert.equal(v3.version, 3);
      assert.equal((await store.readHistory(alice)).length, 4);
      assert.equal((await store.readRunJournal(alice, 'run-1')).length, 3);
    });

    test('rejects a stale version, a missing session and a wrong historyLength, writing nothing', async (harness) => {
      const { store } = harness;
      const v1 = await store.create(newSession('s1', 'alice'));
      const v2 = await store.save(commitOn(v1, [msg('a')]));
      await rejects(store.save(commitOn(v1, [msg('b')])), {
        name: 'SessionConflictError',
        expectedVersion: 1,
        actualVersion: 2,
      });
      await rejects(store.load({ sessionId: 'nope', userId: 'alice' }), SessionNotFoundError);
      await rejects(store.save(commitOn({ ...v1, sessionId: 'nope' }, [])), SessionNotFoundError);
      const bad = { ...commitOn(v2, [msg('c')]), items: [] };
      await rejects(store.save(bad), TypeError);
      equal(await store.load(alice), v2);
      equal(await store.readHistory(alice), [msg('a')]);
    });

    test('lets exactly one of concurrent saves from the same version win', async (harness) => {
      const { store } = harness;
      const v1 = await store.create(newSession('s1', 'alice'));
      const results = await Promise.allSettled(
        ['first', 'second', 'third'].map((text) => store.save(commitOn(v1, [msg(text)]))),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(lost.length, 2);
      for (const r of lost) assert.ok(r.reason instanceof SessionConflictError);
      matches(await store.load(alice), { version: 2, historyLength: 1 });
      assert.equal((await store.readHistory(alice)).length, 1);
    });

    partitionCases(test);
    retentionCases(test, alice);

    test('reports damage on read as a typed error naming the key, and overwrites nothing', async (harness) => {
      const { store } = harness;
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 2 }, [
        msg('hi'),
        reply('hello'),
      ]);
      await harness.damageHistoryItem(alice, 1, '{"type":"message","role":"robot"}');
      await rejects(store.readHistory(alice, 0, 2), {
        name: 'InvalidSessionRecordError',
        key: historyKey(alice, 1),
      });
      equal(await store.readHistory(alice, 0, 1), [msg('hi')]);
      for (const garbage of ['{not json', '#00000000{"schemaVersion":2}']) {
        await harness.damageRecord(alice, garbage);
        const loading = store.load(alice);
        await rejects(loading, InvalidSessionRecordError);
        await rejects(loading, { key: recordKey(alice) });
        await rejects(store.loadForUpdate(alice), InvalidSessionRecordError);
        await rejects(store.save(commitOn(v1, [msg('x')])), InvalidSessionRecordError);
      }
      // A corrupt session can still be purged.
      await store.purge(alice);
      await rejects(store.load(alice), SessionNotFoundError);
    });

    test('loadForUpdate given a known record reads another save, and damage, as without it', async (harness) => {
      const { store } = harness;
      await store.create(newSession('s1', 'alice'));
      const { record: known } = await store.loadForUpdate(alice);
      matches(await store.loadForUpdate(alice, known), { record: known });
      // Another writer (here: the same store, from the known version) moves the session on.
      const saved = await store.save(commitOn(known, [msg('hi')]));
      const after = await store.loadForUpdate(alice, known);
      assert.notEqual(after.record, known);
      matches(after.record, { version: 2, historyLength: 1 });
      equal(after.record, await store.load(alice));
      // The stored value damaged under a record this store saved: the typed error, as always.
      await harness.damageRecord(alice, '{not json');
      await rejects(store.loadForUpdate(alice, saved), {
        name: 'InvalidSessionRecordError',
        key: recordKey(alice),
      });
    });
  });
}
