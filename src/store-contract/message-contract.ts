import { strict as assert } from 'node:assert';
import type { MessageInbox } from '../persistence/message-inbox.js';
import type { SessionStore } from '../persistence/session-store.js';
import { equal, rejects } from './contract-assert.js';
import {
  claimedSupports,
  storeTest,
  type ContractTests,
  type StoreContractOptions,
} from './contract-harness.js';
import { supportsCapability, hasLeases, hasMessageInbox } from '../persistence/store-supports.js';
import { commitOn, eventEntry, msg, newSession, newWorkflow } from './contract-fixtures.js';

/**
 * The message-inbox part of the store contract (`whileBusy: 'queue' | 'steer'`): messages
 * kept per session in order, taken atomically with a save, dropped, purged, partitioned by
 * owner. Runs when the options say the store keeps one.
 */
export function messageContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const inboxOf = (store: SessionStore): SessionStore & MessageInbox => {
    if (!hasMessageInbox(store)) throw new Error(`${name} keeps no message inbox`);
    return store;
  };
  const alice = { sessionId: 's', userId: 'alice' };
  const bob = { sessionId: 's', userId: 'bob' };
  const message = (text: string, kind: 'queue' | 'steer' = 'queue') => ({
    key: alice,
    kind,
    items: [msg(text)],
    options: { maxTurns: 3 },
    at: 7,
  });
  tests.describe(`${name}: message inbox`, () => {
    storeTest(tests, open, 'keeps a session’s messages in order, apart per owner', async (h) => {
      const store = inboxOf(h.store);
      const one = await store.queueMessage(message('one'));
      const two = await store.queueMessage(message('two', 'steer'));
      await store.queueMessage({ ...message('bob'), key: bob });
      equal(one, {
        key: alice,
        id: one.id,
        kind: 'queue',
        items: [msg('one')],
        options: { maxTurns: 3 },
        at: 7,
      });
      equal(await store.queuedMessages(alice), [one, two]);
      equal(await store.queuedMessages(alice, { limit: 1 }), [one]);
      equal(
        (await store.queuedMessages(bob)).map((m) => m.items),
        [[msg('bob')]],
      );
      equal(await store.queuedMessages({ sessionId: 's' }), []);
      equal(await store.dropQueuedMessage(alice, one.id), true);
      equal(await store.dropQueuedMessage(alice, one.id), false);
      equal(await store.dropQueuedMessage(bob, two.id), false); // another owner's id
      equal(await store.queuedMessages(alice), [two]);
    });

    storeTest(tests, open, 'a save takes messages in its own atomic write', async (h) => {
      const store = inboxOf(h.store);
      const created = await store.create(newSession('s', 'alice'));
      const one = await store.queueMessage(message('one'));
      const two = await store.queueMessage(message('two'));
      // A save refused by its version check takes nothing.
      const stale = commitOn({ ...created, version: 9 }, [msg('one')], [], { dequeued: [one.id] });
      await rejects(store.save(stale), { code: 'SESSION_CONFLICT' });
      equal(await store.queuedMessages(alice), [one, two]);
      const saved = await store.save(commitOn(created, [msg('one')], [], { dequeued: [one.id] }));
      equal(await store.queuedMessages(alice), [two]);
      equal(await store.readHistory(alice), [msg('one')]);
      await store.save(commitOn(saved, [], [], { dequeued: [two.id] }));
      equal(await store.queuedMessages(alice), []);
    });

    storeTest(
      tests,
      open,
      'a workflow instance’s events: queued from anywhere, each taken once with the save that applies it, in order',
      async (h) => {
        const store = inboxOf(h.store);
        const order = { sessionId: 'workflow:o1', userId: 'alice' };
        const created = await store.create(newWorkflow('o1', 'alice'));
        // What `send` queues: no items, the event and its sender's id in the options.
        const event = (type: string, eventId: string) => ({
          key: order,
          kind: 'queue' as const,
          items: [],
          options: { event: { type, amount: 5 }, eventId },
          at: 9,
        });
        const pay = await store.queueMessage(event('PAY', 'e1'));
        const ship = await store.queueMessage(event('SHIP', 'e2'));
        await store.queueMessage({ ...event('PAY', 'e1'), key: { ...order, userId: 'bob' } });
        equal(
          (await store.queuedMessages(order)).map((m) => m.options),
          [pay.options, ship.options],
        );
        const applied = await store.save(
          commitOn(created, [], [eventEntry('wf-run', 0)], { dequeued: [pay.id] }),
        );
        // The second writer of the same version takes nothing: the event stays queued.
        const late = commitOn(created, [], [eventEntry('wf-run', 0)], { dequeued: [ship.id] });
        await rejects(store.save(late), { code: 'SESSION_CONFLICT' });
        equal(await store.queuedMessages(order), [ship]);
        await store.save(commitOn(applied, [], [eventEntry('wf-run', 1)], { dequeued: [ship.id] }));
        equal(await store.queuedMessages(order), []);
        equal(
          (await store.readRunJournal(order, 'wf-run')).map((e) => e.step),
          [0, 1],
        );
        equal((await store.queuedMessages({ ...order, userId: 'bob' })).length, 1);
      },
    );

    // With leases: a lease may tell of the inbox (a store whose leases tell nothing leaves the
    // runtime to read the inbox).
    if (claimedSupports(options).leases) {
      storeTest(
        tests,
        open,
        'a lease that tells of the inbox tells it right: at its grant and at its release',
        async (h) => {
          const store = inboxOf(h.store);
          if (!hasLeases(store)) throw new Error(`${name} must implement SessionLeases`);
          const created = await store.create(newSession('s', 'alice'));
          const quiet = await store.acquireLease(alice, 'w1', 10_000);
          if (quiet?.queued === undefined) return;
          assert.equal(quiet.queued, false);
          // Nothing queued while it was held: the release says so (another user's does not count).
          await store.queueMessage({ ...message('bob'), key: bob });
          equal(await store.releaseLease(quiet), { queued: false });
          // Queued while held: the release says so.
          const held = (await store.acquireLease(alice, 'w1', 10_000))!;
          assert.equal(held.queued, false);
          const one = await store.queueMessage(message('one'));
          equal(await store.releaseLease(held), { queued: true });
          // Queued before the grant: the grant says so, and so does the release.
          const next = (await store.acquireLease(alice, 'w2', 10_000))!;
          assert.equal(next.queued, true);
          const saved = await store.save(
            commitOn(created, [msg('one')], [], { dequeued: [one.id], lease: next }),
          );
          equal(await store.releaseLease(next), { queued: true });
          // Taken: the next grant and its release find nothing.
          const last = (await store.acquireLease(alice, 'w1', 10_000))!;
          assert.equal(last.queued, false);
          assert.equal(saved.version, 2);
          equal(await store.releaseLease(last), { queued: false });
        },
      );
    }

    storeTest(tests, open, 'bad messages are refused and purge removes the inbox', async (h) => {
      const store = inboxOf(h.store);
      await rejects(store.queueMessage({ ...message('x'), kind: 'later' as never }), TypeError);
      await rejects(store.queueMessage({ ...message('x'), at: -1 }), TypeError);
      await rejects(store.queuedMessages(alice, { limit: 0 }), TypeError);
      equal(await store.queuedMessages(alice), []);
      await store.create(newSession('s', 'alice'));
      await store.queueMessage(message('one'));
      await store.queueMessage({ ...message('bob'), key: bob });
      await store.purge(alice);
      equal(await store.queuedMessages(alice), []);
      assert.equal((await store.queuedMessages(bob)).length, 1);
    });
  });
}

/**
 * `queuedSessions`, part of the message inbox a store may leave out: where `recover()` looks for
 * messages no run took (without it they wait for the session's next run).
 */
export function queuedSessionsContract(
  tests: ContractTests,
  { name, open }: StoreContractOptions,
): void {
  const alice = { sessionId: 's', userId: 'alice' };
  const bob = { sessionId: 's', userId: 'bob' };
  const message = (text: string) => ({
    key: alice,
    kind: 'queue' as const,
    items: [msg(text)],
    options: { maxTurns: 3 },
    at: 7,
  });
  tests.describe(`${name}: queued sessions`, () => {
    storeTest(
      tests,
      open,
      'lists the sessions of one owner whose inbox holds a message',
      async (h) => {
        const store = h.store;
        if (!hasMessageInbox(store) || !supportsCapability(store, 'queuedSessions')) {
          throw new Error(`${name} must implement queuedSessions`);
        }
        const sessions = store.queuedSessions.bind(store);
        equal(await sessions({ userId: 'alice' }), []);
        const t = { sessionId: 't', userId: 'alice' };
        const odd = { sessionId: 'a!b c', userId: 'alice' };
        await store.queueMessage({ ...message('t1'), key: t });
        await store.queueMessage(message('s1'));
        await store.queueMessage(message('s2'));
        const last = await store.queueMessage({ ...message('t2'), key: t });
        await store.queueMessage({ ...message('odd'), key: odd });
        await store.queueMessage({ ...message('bob'), key: bob });
        await store.queueMessage({ ...message('anon'), key: { sessionId: 'x' } });
        equal(await sessions({ userId: 'alice' }), [odd, alice, t]);
        equal(await sessions({ userId: 'alice', limit: 2 }), [odd, alice]);
        equal(await sessions({ userId: 'bob' }), [bob]);
        equal(await sessions({}), [{ sessionId: 'x', userId: undefined }]);
        await rejects(sessions({ userId: 'alice', limit: 0 }), TypeError);
        const [t1] = await store.queuedMessages(t);
        await store.dropQueuedMessage(t, t1!.id);
        await store.dropQueuedMessage(t, last.id);
        equal(await sessions({ userId: 'alice' }), [odd, alice]);
      },
    );
  });
}
