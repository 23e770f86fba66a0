import { strict as assert } from 'node:assert';
import { InvalidSessionRecordError, SessionNotFoundError } from '../errors/session-errors.js';
import { LIST_ORDERS } from '../persistence/entries/list-order.js';
import { journalKey } from '../persistence/session-keys.js';
import type { SessionRecord } from '../persistence/session-store.js';
import { equal, matches, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import {
  commitOn,
  entry,
  eventEntry,
  newSession,
  newWorkflow,
  stepEntry,
  usage,
} from './contract-fixtures.js';
import { allPages, expected } from './order-contract.js';

const ids = (page: { sessions: { sessionId: string }[] }) => page.sessions.map((s) => s.sessionId);

/**
 * The workflow records part of the store contract (what `workflows()` keeps in a store): an
 * instance of a hosted app machine is a record whose `workflow` field is set, kept with every
 * guarantee a session has, and listed apart (`list({ kind: 'workflow' })`): sessions lists never
 * hold an instance, nor the instance lists a session, in any order and across pages.
 */
export function workflowContract(tests: ContractTests, { name, open }: StoreContractOptions): void {
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: workflow records`, () => {
    const order1 = { sessionId: 'workflow:o1', userId: 'alice' };

    test('create, load, save and list keep the workflow field', async ({ store }) => {
      const created = await store.create(newWorkflow('o1', 'alice'));
      matches(created, { version: 1, workflow: 'orders', machineVersion: 'workflow/orders@1' });
      equal(await store.load(order1), created);
      equal((await store.loadForUpdate(order1)).record, created);
      const commit = commitOn(created, [], [], { status: 'completed' });
      const saved = await store.save({
        ...commit,
        record: { ...commit.record, snapshot: created.snapshot },
      });
      matches(saved, { version: 2, workflow: 'orders', status: 'completed' });
      equal(await store.load(order1), saved);
      const [listed] = (await store.list({ userId: 'alice', kind: 'workflow' })).sessions;
      const { snapshot: _snapshot, machineVersion: _machineVersion, ...info } = saved;
      equal(listed, info);
    });

    test('lists each kind apart, with paging, a status filter and cursors', async ({ store }) => {
      for (let i = 0; i < 7; i++) {
        await store.create(newWorkflow(`o${i}`, 'alice', i % 3 === 1 ? 'completed' : 'active'));
      }
      // Sessions on both sides of the instances' ids, one named like them without being one.
      for (const id of ['a1', 'workflow:fake', 'z1', 'z2']) {
        await store.create(newSession(id, 'alice'));
      }
      const instances = ['o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6'].map((o) => `workflow:${o}`);
      const sessions = ['a1', 'workflow:fake', 'z1', 'z2'];
      equal(ids(await store.list({ userId: 'alice' })), sessions);
      equal(ids(await store.list({ userId: 'alice', kind: 'session' })), sessions);
      equal(ids(await store.list({ userId: 'alice', kind: 'workflow' })), instances);
      for (const limit of [1, 2, 3, 7, 8]) {
        equal(await allPages(store, { userId: 'alice', kind: 'workflow', limit }), instances);
        equal(await allPages(store, { userId: 'alice', limit }), sessions);
      }
      const done = { userId: 'alice', kind: 'workflow', status: 'completed', limit: 1 } as const;
      equal(await allPages(store, done), ['workflow:o1', 'workflow:o4']);
      equal(await allPages(store, { userId: 'alice', status: 'completed', limit: 1 }), []);
      // A cursor of one kind's page goes on in that kind only.
      const first = await store.list({ userId: 'alice', kind: 'workflow', limit: 2 });
      const rest = await store.list({
        userId: 'alice',
        kind: 'workflow',
        cursor: first.nextCursor,
      });
      equal([...ids(first), ...ids(rest)], instances);
      await rejects(store.list({ userId: 'alice', kind: 'workflows' as 'workflow' }), TypeError);
    });

    test('every list order holds per kind across pages', async ({ store }) => {
      const records: SessionRecord[] = [];
      for (let i = 0; i < 14; i++) {
        const base = i % 2 ? newWorkflow(`o${i}`, 'alice') : newSession(`s${i}`, 'alice');
        records.push(
          await store.create({
            ...base,
            createdAt: 1_000 + ((i * 7) % 11),
            updatedAt: 5_000 + ((i * 5) % 13),
            usage: usage(1, (i * 3) % 8, 0),
            awaitingApproval: i % 5 === 3,
          }),
        );
      }
      // A save moves an instance in its kind's orders; a purge takes it out of them.
      const moved = records[9]!;
      const commit = commitOn(moved, []);
      await store.save({ ...commit, record: { ...commit.record, updatedAt: 9_000 } });
      await store.purge({ sessionId: records[11]!.sessionId, userId: 'alice' });
      const infos = async (kind: 'session' | 'workflow') =>
        (await store.list({ userId: 'alice', kind, limit: 100 })).sessions;
      const instances = await infos('workflow');
      const sessions = await infos('session');
      assert.equal(instances.length, 6);
      assert.equal(sessions.length, 7);
      assert.ok(instances.every((s) => s.workflow === 'orders'));
      assert.ok(sessions.every((s) => s.workflow === undefined));
      for (const order of LIST_ORDERS) {
        for (const limit of [1, 4, 6, 50]) {
          const query = { userId: 'alice', order, limit } as const;
          equal(
            await allPages(store, { ...query, kind: 'workflow' }),
            expected(order, instances),
            `workflows ${order} by ${limit}`,
          );
          equal(await allPages(store, query), expected(order, sessions), `${order} by ${limit}`);
        }
      }
      const byUpdate = await allPages(store, {
        userId: 'alice',
        kind: 'workflow',
        order: 'updated',
        limit: 2,
      });
      // The instances awaiting an approval first, then the one just saved.
      equal(byUpdate.slice(0, 3), ['workflow:o3', 'workflow:o13', 'workflow:o9']);
    });

    test('another user never sees an instance, in any kind or order', async ({ store }) => {
      await store.create(newWorkflow('o1', 'alice'));
      await store.create(newWorkflow('o1', 'bob'));
      await store.create(newWorkflow('o2'));
      const bob = { sessionId: 'workflow:o1', userId: 'bob' };
      const bobs = await store.load(bob);
      await store.save(commitOn(bobs, [], [eventEntry('wf-run', 0)]));
      for (const order of [undefined, ...LIST_ORDERS]) {
        equal(ids(await store.list({ userId: 'alice', kind: 'workflow', order })), ['workflow:o1']);
        equal(ids(await store.list({ userId: 'carol', kind: 'workflow', order })), []);
        equal(ids(await store.list({ kind: 'workflow', order })), ['workflow:o2']);
        equal(ids(await store.list({ userId: 'alice', order })), []);
      }
      await rejects(
        store.load({ sessionId: 'workflow:o2', userId: 'alice' }),
        SessionNotFoundError,
      );
      assert.equal(await store.readJournal(order1, 'wf-run', 0), undefined);
      equal(await store.readRunJournal(order1, 'wf-run'), []);
      matches(await store.load(bob), { version: 2, workflow: 'orders' });
    });

    test('journals event and step entries, read back as written', async ({ store }) => {
      const created = await store.create(newWorkflow('o1', 'alice'));
      const journal = [
        eventEntry('wf-run', 0, 'START'),
        stepEntry('wf-run', 1),
        eventEntry('wf-run', 2),
      ];
      await store.save(commitOn(created, [], journal));
      equal(await store.readJournal(order1, 'wf-run', 1), journal[1]);
      equal(await store.readRunJournal(order1, 'wf-run'), journal);
      equal(await store.readRunJournal(order1, 'wf-run', 2), [journal[2]]);
      // A run's kinds and a workflow's live side by side in one journal.
      const v2 = await store.load(order1);
      await store.save(commitOn(v2, [], [entry('agent-run', 0)]));
      equal(await store.readRunJournal(order1, 'agent-run'), [entry('agent-run', 0)]);
    });

    test('refuses an event or step entry whose output is not its kind’s, naming key and field', async ({
      store,
    }) => {
      const created = await store.create(newWorkflow('o1', 'alice'));
      const bad = { ...stepEntry('wf-run', 0), output: { actorId: 'validate', outcome: 'done' } };
      // Refused on write (nothing changes), or written and refused on every read.
      const written = await store.save(commitOn(created, [], [bad])).then(
        () => true,
        (error: unknown) => {
          assert.ok(error instanceof TypeError, `a refused write is a TypeError: ${String(error)}`);
          return false;
        },
      );
      if (!written) {
        matches(await store.load(order1), { version: 1 });
        assert.equal(await store.readJournal(order1, 'wf-run', 0), undefined);
        return;
      }
      const key = journalKey(order1, 'wf-run', 0);
      // each read starts when it is awaited: a second one rejecting first is not left unheard
      for (const read of [
        () => store.readJournal(order1, 'wf-run', 0),
        () => store.readRunJournal(order1, 'wf-run'),
      ]) {
        const error = await rejects(read(), InvalidSessionRecordError);
        matches(error, { key, field: 'output.name' });
      }
    });

    test('purges an instance from its listing, orders and journal', async ({ store }) => {
      const created = await store.create(newWorkflow('o1', 'alice'));
      await store.save(commitOn(created, [], [eventEntry('wf-run', 0)]));
      await store.create(newWorkflow('o2', 'alice'));
      await store.purge(order1);
      await rejects(store.load(order1), SessionNotFoundError);
      assert.equal(await store.readJournal(order1, 'wf-run', 0), undefined);
      for (const order of [undefined, ...LIST_ORDERS]) {
        equal(ids(await store.list({ userId: 'alice', kind: 'workflow', order })), ['workflow:o2']);
      }
      await rejects(store.purge(order1), SessionNotFoundError);
      matches(await store.create(newWorkflow('o1', 'alice')), { version: 1 });
    });
  });
}
