import { describe, expect, it } from 'vitest';
import { InvalidSessionRecordError } from '../../../src/errors/session-errors.js';
import { ScheduleConflictError } from '../../../src/errors/schedule-errors.js';
import { migrateSchema } from '../../../src/persistence/postgres/postgres-schema.js';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import type { ScheduleRecord } from '../../../src/persistence/schedule-store.js';
import { contractSchedule, scheduleAudit } from '../../../src/store-contract/schedule-contract.js';
import { countingPool } from '../../helpers/counting-pool.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

/**
 * The schedules of the PostgreSQL store beyond the contract suite: one statement per write (the
 * row and its audit entry together), racing writers told apart from a missing schedule, damaged
 * rows, the next-tick index read through its partial index, the migration to version 10.
 */
const pgt = usePostgres();

const created = async (store: PostgresSessionStore, record: ScheduleRecord) =>
  store.createSchedule(record, scheduleAudit(record, 'create'));

describe('PostgresSessionStore schedules', () => {
  it('writes each schedule change and its audit entry in one statement, and reads in one', async () => {
    const schema = pgt.schema('statements');
    const counted = countingPool(pgt.pool);
    const store = await PostgresSessionStore.open({ pool: counted.pool, schema });
    try {
      const calls: [string, number][] = [];
      const count = async <T>(name: string, call: () => Promise<T>): Promise<T> => {
        counted.statements.length = 0;
        const result = await call();
        calls.push([name, counted.statements.length]);
        return result;
      };
      const record = contractSchedule('hourly', 60_000);
      const v1 = await count('create', () => created(store, record));
      const v2 = await count('save', () =>
        store.saveSchedule({ ...v1, nextAt: 120_000, dueAt: 120_000 }, scheduleAudit(v1, 'tick')),
      );
      await count('get', () => store.getSchedule({ userId: 'alice', id: 'hourly' }));
      await count('list', () => store.listSchedules({ userId: 'alice' }));
      await count('due', () => store.dueSchedules({ until: 200_000, limit: 10 }));
      await count('conflict', () =>
        store.saveSchedule(v1, undefined).catch((error: unknown) => error),
      );
      await count('delete', () =>
        store.deleteSchedule(
          { userId: 'alice', id: 'hourly' },
          v2.version,
          scheduleAudit(v2, 'delete'),
        ),
      );
      expect(calls).toEqual([
        ['create', 1],
        ['save', 1],
        ['get', 1],
        ['list', 1],
        ['due', 1],
        ['conflict', 1],
        ['delete', 1],
      ]);
      const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
      expect(audit.entries.map((e) => [e.action, e.scheduleId, e.sessionId])).toEqual([
        ['create', 'hourly', 's-hourly'],
        ['delete', 'hourly', 's-hourly'],
        ['tick', 'hourly', 's-hourly'],
      ]);
      expect(store.stats().batches).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('stores nothing when the audit entry cannot be written (one atomic write)', async () => {
    const { store, cleanup } = await pgt.freshStore('atomic');
    try {
      const record = contractSchedule('daily', 60_000);
      const v1 = await created(store, record);
      // The same audit entry again: its key is taken, so the statement fails as a whole.
      const taken = scheduleAudit(record, 'create');
      await expect(
        store.saveSchedule({ ...v1, paused: true, dueAt: undefined }, taken),
      ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(created(store, { ...record, id: 'other' })).resolves.toMatchObject({
        version: 1,
      });
      await expect(store.createSchedule({ ...record, id: 'third' }, taken)).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
      expect(await store.getSchedule({ userId: 'alice', id: 'daily' })).toEqual(v1);
      expect(await store.getSchedule({ userId: 'alice', id: 'third' })).toBeUndefined();
      expect((await store.dueSchedules({ until: 60_000, limit: 10 })).due.map((r) => r.id)).toEqual(
        ['daily', 'other'],
      );
    } finally {
      await cleanup();
    }
  });

  it('of ten writers racing at one version one wins; the others are told the version that won', async () => {
    const { store, cleanup } = await pgt.freshStore('race');
    try {
      const v1 = await created(store, contractSchedule('race', 60_000));
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.saveSchedule({ ...v1, runs: i + 1 }, scheduleAudit(v1, `claim${i}`)),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const lost of results.filter((r) => r.status === 'rejected')) {
        expect(lost.reason).toBeInstanceOf(ScheduleConflictError);
        expect(lost.reason).toMatchObject({ expectedVersion: 1, actualVersion: 2 });
      }
      const stored = await store.getSchedule({ userId: 'alice', id: 'race' });
      expect(stored).toEqual((won[0] as PromiseFulfilledResult<ScheduleRecord>).value);
      const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
      expect(audit.entries).toHaveLength(2); // the create and the one claim that won
    } finally {
      await cleanup();
    }
  });

  it('a write that waited on the row of a writer who then won names the version that won', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('waited');
    const holder = await pgt.pool.connect();
    try {
      const v1 = await created(store, contractSchedule('held', 60_000));
      // Another writer's transaction holds the row (its update not committed yet).
      await holder.query('BEGIN');
      await holder.query(
        `UPDATE "${schema}".agentstate_schedules SET version = 2 WHERE id = 'held'`,
      );
      const save = store.saveSchedule({ ...v1, runs: 1 }, undefined);
      save.catch(() => undefined);
      // The save waits on the row's lock (its snapshot still sees version 1)...
      for (;;) {
        const { rows } = await pgt.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'
             AND query LIKE '%agentstate_schedules%'`,
        );
        if (rows[0]!.n > 0) break;
      }
      // ...and finds another version once the holder commits.
      await holder.query('COMMIT');
      await expect(save).rejects.toMatchObject({
        code: 'SCHEDULE_CONFLICT',
        expectedVersion: 1,
        actualVersion: 2,
      });
    } finally {
      holder.release();
      await cleanup();
    }
  });

  it('reports a damaged or moved row of the index as damaged and reads the others', async () => {
    const { store, schema, cleanup } = await pgt.freshStore('damage');
    const table = `"${schema}".agentstate_schedules`;
    try {
      for (const [id, at] of [
        ['a', 100],
        ['b', 200],
        ['c', 300],
        ['d', 400],
      ] as const) {
        await created(store, contractSchedule(id, at));
      }
      await pgt.pool.query(`UPDATE ${table} SET record = left(record, 40) WHERE id = 'a'`);
      // A row copied to another user or id fails its seal.
      await pgt.pool.query(`UPDATE ${table} SET owner = 'u:bob' WHERE id = 'b'`);
      // The index column differs from the record's dueAt.
      await pgt.pool.query(`UPDATE ${table} SET due_at = 250 WHERE id = 'c'`);
      const page = await store.dueSchedules({ until: 1_000, limit: 10 });
      expect(page.due.map((r) => r.id)).toEqual(['d']);
      expect(page.damaged.map((e) => (e as InvalidSessionRecordError).key)).toEqual([
        'sch!u:alice!a',
        'sch!u:bob!b',
        'sch!u:alice!c',
      ]);
      for (const error of page.damaged) expect(error).toBeInstanceOf(InvalidSessionRecordError);
      await expect(store.getSchedule({ userId: 'alice', id: 'a' })).rejects.toBeInstanceOf(
        InvalidSessionRecordError,
      );
      await expect(store.getSchedule({ userId: 'bob', id: 'b' })).rejects.toMatchObject({
        code: 'INVALID_SESSION_RECORD',
        key: 'sch!u:bob!b',
      });
      await expect(store.listSchedules({ userId: 'alice' })).rejects.toBeInstanceOf(
        InvalidSessionRecordError,
      );
    } finally {
      await cleanup();
    }
  });

  it('pages the index across users in (dueAt, user, id) order, ties included, next after until', async () => {
    const { store, cleanup } = await pgt.freshStore('pages');
    try {
      for (const [id, user, at] of [
        ['x', 'carol', 100],
        ['y', 'alice', 100],
        ['x', 'alice', 100],
        ['z', 'bob', 50],
        ['later', 'bob', 5_000],
      ] as const) {
        await created(store, contractSchedule(id, at, { userId: user }));
      }
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.dueSchedules({ until: 100, limit: 2, after });
        seen.push(...page.due.map((r) => `${r.userId}/${r.id}`));
        if (page.cursor === undefined) {
          expect(page.next).toBe(5_000);
          break;
        }
        expect(page.next).toBeUndefined();
        after = page.cursor;
      }
      expect(seen).toEqual(['bob/z', 'alice/x', 'alice/y', 'carol/x']);
      await expect(store.dueSchedules({ until: 100, limit: 2, after: 'nope' })).rejects.toThrow(
        TypeError,
      );
      await expect(store.dueSchedules({ until: 100, limit: 0 })).rejects.toThrow(TypeError);
      await expect(store.dueSchedules({ until: -1, limit: 1 })).rejects.toThrow(TypeError);
    } finally {
      await cleanup();
    }
  });

  it('migrates a version 9 database to 10; the due read is a range read of the partial index', async () => {
    const schema = pgt.schema('before-schedules');
    await migrateSchema(pgt.pool, schema, 9);
    const counted = countingPool(pgt.pool);
    const store = await PostgresSessionStore.open({ pool: counted.pool, schema });
    try {
      await created(store, contractSchedule('m', 100));
      counted.statements.length = 0;
      expect((await store.dueSchedules({ until: 100, limit: 1 })).due).toHaveLength(1);
      const [due] = counted.statements;
      const client = await pgt.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL enable_seqscan = off');
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${due!.text}`, [
          100,
          null,
          null,
          null,
          2,
        ]);
        await client.query('ROLLBACK');
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        // The page and `next`: both reads of the index, neither a scan of the table.
        expect(plan.match(/Index (Only )?Scan using agentstate_schedules_due/g)).toHaveLength(2);
        expect(plan).not.toContain('Seq Scan');
      } finally {
        client.release();
      }
    } finally {
      await store.close();
    }
  });
});
