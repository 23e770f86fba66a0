import { equal, matches, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { contractSchedule, scheduleAudit, schedulesOf } from './schedule-contract-fixtures.js';

/**
 * The schedules' next-tick index in the store contract: kept on `dueAt` by the same write as the
 * record (moved when it changes, out of it without one), read in (`dueAt`, user, id) order
 * across users a page at a time, each entry once, with the next `dueAt` after the page; a
 * damaged record reported in `damaged`, not thrown.
 */
export function scheduleIndexContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: schedules' next-tick index`, () => {
    test('reads the next-tick index in dueAt order, without schedules that have no dueAt (paused, ended)', async (h) => {
      const store = schedulesOf(name, h.store);
      for (const [id, nextAt, extra] of [
        ['c', 300, {}],
        ['a', 100, { userId: 'bob' }],
        ['b', 200, {}],
        ['paused', 50, { paused: true }],
        ['ended', undefined, {}],
        ['later', 900, {}],
      ] as const) {
        const record = contractSchedule(id, nextAt, extra);
        await store.createSchedule(record, scheduleAudit(record, 'create'));
      }
      const page = await store.dueSchedules({ until: 300, limit: 10 });
      equal(
        page.due.map((r) => r.id),
        ['a', 'b', 'c'],
      );
      equal(page.next, 900);
      equal(page.cursor, undefined);
      const first = await store.dueSchedules({ until: 300, limit: 2 });
      equal(
        first.due.map((r) => r.id),
        ['a', 'b'],
      );
      const rest = await store.dueSchedules({ until: 300, limit: 2, after: first.cursor });
      equal(
        rest.due.map((r) => r.id),
        ['c'],
      );
    });

    test('moves a schedule in the next-tick index when its dueAt changes, out of it without one', async (h) => {
      const store = schedulesOf(name, h.store);
      const a = contractSchedule('a', 100);
      const b = contractSchedule('b', 200);
      const createdA = await store.createSchedule(a, scheduleAudit(a, 'create'));
      await store.createSchedule(b, scheduleAudit(b, 'create'));
      const moved = await store.saveSchedule({ ...createdA, nextAt: 300, dueAt: 300 }, undefined);
      const createdB = await store.getSchedule({ userId: 'alice', id: 'b' });
      // Its old position is gone: no entry there, due or damaged.
      equal(await store.dueSchedules({ until: 150, limit: 10 }), {
        due: [],
        damaged: [],
        cursor: undefined,
        next: 200,
      });
      equal(await store.dueSchedules({ until: 250, limit: 10 }), {
        due: [createdB],
        damaged: [],
        cursor: undefined,
        next: 300,
      });
      equal(await store.dueSchedules({ until: 300, limit: 10 }), {
        due: [createdB, moved],
        damaged: [],
        cursor: undefined,
        next: undefined,
      });
      // Paused: no dueAt, out of the index (the record keeps its nextAt).
      await store.saveSchedule({ ...moved, paused: true, dueAt: undefined }, undefined);
      equal(await store.dueSchedules({ until: 1_000, limit: 10 }), {
        due: [createdB],
        damaged: [],
        cursor: undefined,
        next: undefined,
      });
      equal((await store.getSchedule({ userId: 'alice', id: 'a' }))?.nextAt, 300);
    });

    test('pages due schedules with equal dueAt in (dueAt, user, id) order, each once', async (h) => {
      const store = schedulesOf(name, h.store);
      for (const [id, userId, dueAt] of [
        ['y', 'alice', 100],
        ['x', 'bob', 100],
        ['z', 'alice', 50],
        ['x', 'alice', 100],
        ['late', 'alice', 400],
      ] as const) {
        const record = contractSchedule(id, dueAt, { userId });
        await store.createSchedule(record, scheduleAudit(record, 'create'));
      }
      const seen: string[] = [];
      let after: string | undefined;
      let last: Awaited<ReturnType<typeof store.dueSchedules>> | undefined;
      for (let pages = 0; pages < 10; pages += 1) {
        last = await store.dueSchedules({ until: 100, limit: 1, after });
        if (last.due.length + last.damaged.length > 1) throw new Error('a page over its limit');
        seen.push(...last.due.map((r) => `${r.userId}/${r.id}`));
        after = last.cursor;
        if (after === undefined) break;
      }
      equal(seen, ['alice/z', 'alice/x', 'alice/y', 'bob/x']);
      equal(last?.next, 400);
      const whole = await store.dueSchedules({ until: 100, limit: 4 });
      equal(
        whole.due.map((r) => `${r.userId}/${r.id}`),
        seen,
      );
      equal(await store.dueSchedules({ until: 10, limit: 4 }), {
        due: [],
        damaged: [],
        cursor: undefined,
        next: 50,
      });
    });

    test('a damaged record is InvalidSessionRecordError when read, and reported in damaged by dueSchedules', async (h) => {
      if (!h.damageSchedule) return; // the harness cannot reach a schedule's stored text
      const store = schedulesOf(name, h.store);
      for (const [id, dueAt] of [
        ['hurt', 100],
        ['fine', 200],
      ] as const) {
        const record = contractSchedule(id, dueAt);
        await store.createSchedule(record, scheduleAudit(record, 'create'));
      }
      await h.damageSchedule('alice', 'hurt', '{"id":"hurt","userId":"alice"');
      await rejects(store.getSchedule({ userId: 'alice', id: 'hurt' }), {
        code: 'INVALID_SESSION_RECORD',
      });
      const page = await store.dueSchedules({ until: 300, limit: 10 });
      equal(
        page.due.map((r) => r.id),
        ['fine'],
      );
      equal(page.damaged.length, 1);
      matches(page.damaged[0], { code: 'INVALID_SESSION_RECORD' });
    });
  });
}
