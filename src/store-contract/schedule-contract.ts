import type { ScheduleRecord } from '../persistence/schedule-store.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { contractSchedule, scheduleAudit, schedulesOf } from './schedule-contract-fixtures.js';
import { scheduleIndexContract } from './schedule-index-contract.js';

export { contractSchedule, scheduleAudit, schedulesOf };

/**
 * The schedules part of the store contract: a schedule stored at version 1, once per id and
 * user; each write at the version its writer read (of writers racing at one version, exactly
 * one wins), with its audit entry, or nothing at all; another user's behaves as missing; a
 * user's listed in id order; the next-tick index read in time order (`schedule-index-contract.ts`).
 */
export function scheduleContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: schedules`, () => {
    test('creates at version 1 once per id, saves at the version read, one of two racing wins', async (h) => {
      const store = schedulesOf(name, h.store);
      const record = contractSchedule('daily', 60_000);
      const created = await store.createSchedule(
        { ...record, version: 7 },
        scheduleAudit(record, 'create'),
      );
      equal(created, { ...record, version: 1 });
      await rejects(store.createSchedule(record, scheduleAudit(record, 'create', 2)), {
        code: 'SCHEDULE_EXISTS',
      });
      equal(await store.getSchedule({ userId: 'alice', id: 'daily' }), created);
      equal(await store.getSchedule({ userId: 'bob', id: 'daily' }), undefined);
      equal(await store.getSchedule({ id: 'daily' }), undefined);
      const racing = await Promise.allSettled([
        store.saveSchedule({ ...created, nextAt: 120_000, dueAt: 120_000 }, undefined),
        store.saveSchedule({ ...created, paused: true, dueAt: undefined }, undefined),
      ]);
      equal(racing.filter((r) => r.status === 'fulfilled').length, 1);
      await rejects(store.saveSchedule({ ...created, runs: 9 }, undefined), {
        code: 'SCHEDULE_CONFLICT',
      });
      const stored = await store.getSchedule({ userId: 'alice', id: 'daily' });
      equal(stored?.version, 2);
      equal(stored?.runs, 0);
    });

    test('partitions by user: another user and the anonymous bucket cannot get, save, delete or list it', async (h) => {
      const store = schedulesOf(name, h.store);
      const record = contractSchedule('x', 100);
      const created = await store.createSchedule(record, scheduleAudit(record, 'create'));
      for (const userId of ['bob', undefined]) {
        const theirs = { ...created, userId };
        equal(await store.getSchedule({ userId, id: 'x' }), undefined);
        await rejects(store.saveSchedule({ ...theirs, runs: 1 }, undefined), {
          code: 'SCHEDULE_NOT_FOUND',
        });
        await rejects(
          store.deleteSchedule({ userId, id: 'x' }, 1, scheduleAudit(theirs, 'delete')),
          {
            code: 'SCHEDULE_NOT_FOUND',
          },
        );
        equal(await store.listSchedules({ userId }), { schedules: [], nextCursor: undefined });
      }
      // The same id under another user is another schedule; each user lists their own.
      const bobs = contractSchedule('x', 200, { userId: 'bob' });
      await store.createSchedule(bobs, scheduleAudit(bobs, 'create'));
      const anonymous = contractSchedule('x', 300, { userId: undefined });
      await store.createSchedule(anonymous, scheduleAudit(anonymous, 'create'));
      equal(await store.getSchedule({ userId: 'alice', id: 'x' }), created);
      equal((await store.listSchedules({ userId: 'alice' })).schedules, [created]);
      equal((await store.listSchedules({ userId: 'bob' })).schedules, [bobs]);
      equal((await store.listSchedules({})).schedules, [anonymous]);
      equal(await store.getSchedule({ id: 'x' }), anonymous);
    });

    test('lists one user’s schedules in id order, a page at a time (default 50, at most 1,000)', async (h) => {
      const store = schedulesOf(name, h.store);
      const ids = ['d', 'b', 'e', 'a', 'c'];
      for (const id of ids) {
        const record = contractSchedule(id, 100);
        await store.createSchedule(record, scheduleAudit(record, 'create'));
      }
      const other = contractSchedule('aa', 100, { userId: 'bob' });
      await store.createSchedule(other, scheduleAudit(other, 'create'));
      const all = await store.listSchedules({ userId: 'alice' });
      equal(
        all.schedules.map((r) => r.id),
        ['a', 'b', 'c', 'd', 'e'],
      );
      equal(all.nextCursor, undefined);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listSchedules({ userId: 'alice', limit: 2, cursor });
        if (page.schedules.length > 2) throw new Error('a page longer than its limit');
        seen.push(...page.schedules.map((r) => r.id));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== undefined && pages < 10);
      equal(seen, ['a', 'b', 'c', 'd', 'e']);
      for (const limit of [0, 1001, 1.5, -1]) {
        await rejects(store.listSchedules({ userId: 'alice', limit }), TypeError);
      }
      equal((await store.listSchedules({ userId: 'alice', limit: 1000 })).schedules.length, 5);
    });

    test('deletes at the version read: a stale one is a conflict, then it is gone with its index entry', async (h) => {
      const store = schedulesOf(name, h.store);
      const record = contractSchedule('gone', 100);
      const created = await store.createSchedule(record, scheduleAudit(record, 'create'));
      const saved = await store.saveSchedule({ ...created, runs: 1 }, undefined);
      const key = { userId: 'alice', id: 'gone' };
      await rejects(store.deleteSchedule(key, 1, scheduleAudit(record, 'delete', 2)), {
        code: 'SCHEDULE_CONFLICT',
      });
      equal(await store.getSchedule(key), saved);
      equal(
        (await store.dueSchedules({ until: 100, limit: 10 })).due.map((r) => r.id),
        ['gone'],
      );
      await store.deleteSchedule(key, 2, scheduleAudit(record, 'delete', 3));
      equal(await store.getSchedule(key), undefined);
      equal(await store.dueSchedules({ until: 1_000, limit: 10 }), {
        due: [],
        damaged: [],
        cursor: undefined,
        next: undefined,
      });
      equal((await store.listSchedules({ userId: 'alice' })).schedules, []);
      await rejects(store.deleteSchedule(key, 2, scheduleAudit(record, 'delete', 4)), {
        code: 'SCHEDULE_NOT_FOUND',
      });
      await rejects(store.saveSchedule({ ...saved, runs: 2 }, undefined), {
        code: 'SCHEDULE_NOT_FOUND',
      });
      // Deleted, the id is free again.
      const again = await store.createSchedule(record, scheduleAudit(record, 'create', 5));
      equal(again.version, 1);
    });

    test('stores each write’s audit entry with it, read back by readAudit (kind schedule)', async (h) => {
      const store = schedulesOf(name, h.store);
      const record = contractSchedule('audited', 100);
      const created = await store.createSchedule(record, scheduleAudit(record, 'create', 10));
      const paused = await store.saveSchedule(
        { ...created, paused: true, dueAt: undefined },
        scheduleAudit(record, 'pause', 20),
      );
      // A save without an entry (a scheduler's claim) writes none.
      const resumed = await store.saveSchedule({ ...paused, paused: false, dueAt: 100 }, undefined);
      await store.deleteSchedule(
        { userId: 'alice', id: 'audited' },
        resumed.version,
        scheduleAudit(record, 'delete', 30),
      );
      const { entries } = await store.readAudit({ userId: 'alice', kind: 'schedule' });
      equal(
        entries.map((e) => [e.kind, e.action, e.scheduleId, e.at]),
        [
          ['schedule', 'create', 'audited', 10],
          ['schedule', 'pause', 'audited', 20],
          ['schedule', 'delete', 'audited', 30],
        ],
      );
      equal(
        entries.map((e) => e.sessionId),
        ['s-audited', 's-audited', 's-audited'],
      );
      equal((await store.readAudit({ userId: 'bob', kind: 'schedule' })).entries, []);
    });

    test('a refused write stores nothing: the record, its index entry and the audit log stay as they were', async (h) => {
      const store = schedulesOf(name, h.store);
      const record = contractSchedule('kept', 100);
      const created = await store.createSchedule(record, scheduleAudit(record, 'create', 10));
      const current = await store.saveSchedule({ ...created, runs: 1 }, undefined);
      const auditNow = async () =>
        (await store.readAudit({ userId: 'alice', kind: 'schedule' })).entries.map((e) => e.action);
      // A stale save, moving it in the index; a second create; a stale delete.
      await rejects(
        store.saveSchedule(
          { ...created, nextAt: 500, dueAt: 500, runs: 7 },
          scheduleAudit(record, 'pause', 20),
        ),
        { code: 'SCHEDULE_CONFLICT' },
      );
      await rejects(
        store.createSchedule({ ...record, dueAt: 600 }, scheduleAudit(record, 'create', 30)),
        { code: 'SCHEDULE_EXISTS' },
      );
      await rejects(
        store.deleteSchedule(
          { userId: 'alice', id: 'kept' },
          1,
          scheduleAudit(record, 'delete', 40),
        ),
        { code: 'SCHEDULE_CONFLICT' },
      );
      equal(await store.getSchedule({ userId: 'alice', id: 'kept' }), current);
      equal(await store.dueSchedules({ until: 1_000, limit: 10 }), {
        due: [current],
        damaged: [],
        cursor: undefined,
        next: undefined,
      });
      equal(await auditNow(), ['create']);
    });

    test('an invalid record is a TypeError, and nothing is stored', async (h) => {
      const store = schedulesOf(name, h.store);
      const bad = contractSchedule('bad', 100, {
        rule: { every: 10 } as unknown as ScheduleRecord['rule'],
      });
      await rejects(store.createSchedule(bad, scheduleAudit(bad, 'create')), TypeError);
      equal(await store.getSchedule({ userId: 'alice', id: 'bad' }), undefined);
      equal((await store.listSchedules({ userId: 'alice' })).schedules, []);
      equal((await store.dueSchedules({ until: 1_000, limit: 10 })).due, []);
      equal((await store.readAudit({ userId: 'alice', kind: 'schedule' })).entries, []);
      // A save of an invalid record leaves the stored one as it was.
      const good = contractSchedule('good', 100);
      const created = await store.createSchedule(good, scheduleAudit(good, 'create'));
      await rejects(
        store.saveSchedule(
          { ...created, overlap: 'never' as ScheduleRecord['overlap'], dueAt: 900 },
          scheduleAudit(good, 'pause', 2),
        ),
        TypeError,
      );
      equal(await store.getSchedule({ userId: 'alice', id: 'good' }), created);
      equal((await store.dueSchedules({ until: 1_000, limit: 10 })).due, [created]);
      equal((await store.readAudit({ userId: 'alice', kind: 'schedule' })).entries.length, 1);
    });
  });
  scheduleIndexContract(tests, options);
}
