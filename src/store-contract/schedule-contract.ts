import type { AuditEntry } from '../persistence/audit-log.js';
import type { ScheduleRecord, ScheduleStore } from '../persistence/schedule-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { hasSchedules } from '../persistence/store-supports.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';

/** A schedule for the contract's tests: every minute from 0, next tick at `nextAt`. */
export function contractSchedule(
  id: string,
  nextAt: number | undefined,
  extra: Partial<ScheduleRecord> = {},
): ScheduleRecord {
  return {
    id,
    userId: 'alice',
    rule: { every: 60_000, from: 0 },
    target: { type: 'message', agent: 'assistant', sessionId: `s-${id}`, text: 'tick' },
    overlap: 'skip',
    catchUp: 'latest',
    paused: extra.paused ?? false,
    ...(nextAt === undefined ? {} : { nextAt }),
    ...(nextAt === undefined || extra.paused === true ? {} : { dueAt: nextAt }),
    runs: 0,
    createdAt: 1,
    updatedAt: 1,
    version: 1,
    ...extra,
  };
}

/** The audit entry of a schedule's change, for the contract's writes. */
export function scheduleAudit(record: ScheduleRecord, action: string, at = 1): AuditEntry {
  return {
    id: `${record.id}-${action}-${at}`.padEnd(26, '0').slice(0, 26),
    userId: record.userId,
    sessionId: 'sessionId' in record.target ? record.target.sessionId : record.target.instanceId,
    runId: undefined,
    at,
    kind: 'schedule',
    action,
    scheduleId: record.id,
    summary: `schedule ${record.id}: ${action}`,
  };
}

/** The store under test as the schedule store it claims to be. */
export function schedulesOf(name: string, store: SessionStore): SessionStore & ScheduleStore {
  if (!hasSchedules(store)) throw new Error(`${name} keeps no schedules`);
  return store;
}

/**
 * The schedules part of the store contract: a schedule stored at version 1, once per id and
 * user; each write at the version its writer read (of writers racing at one version, exactly
 * one wins); another user's behaves as missing; the next-tick index read in time order.
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
  });
}
