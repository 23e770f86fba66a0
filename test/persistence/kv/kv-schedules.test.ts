import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KvRange } from '../../../src/persistence/key-range.js';
import type { KvOp } from '../../../src/persistence/kv/backends/kv-backend.js';
import { LevelBackend } from '../../../src/persistence/kv/backends/level-backend.js';
import { KvSessionStore } from '../../../src/persistence/kv/kv-session-store.js';
import { LevelSessionStore } from '../../../src/persistence/kv/level-session-store.js';
import { MemorySessionStore } from '../../../src/persistence/kv/memory-session-store.js';
import { scheduleIndexKey, scheduleKey } from '../../../src/persistence/kv/schedule-keys.js';
import type { ScheduleRecord } from '../../../src/persistence/schedule-store.js';
import { encodeStored } from '../../../src/persistence/session-schemas.js';
import { contractSchedule, scheduleAudit } from '../../../src/store-contract/schedule-contract.js';
import { TempStores } from '../../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A LevelDB backend that counts the keys its store reads: by key, and in ranges as consumed. */
class CountedReads extends LevelBackend {
  keysRead = 0;
  readonly ranges: KvRange[] = [];

  override async getMany(keys: string[]): Promise<(string | undefined)[]> {
    this.keysRead += keys.length;
    return super.getMany(keys);
  }

  override getManySync(keys: string[]): (string | undefined)[] | undefined {
    const values = super.getManySync(keys);
    if (values) this.keysRead += keys.length;
    return values;
  }

  override async *iterate(range: KvRange): AsyncIterable<[string, string]> {
    this.ranges.push(range);
    for await (const entry of super.iterate(range)) {
      this.keysRead += 1;
      yield entry;
    }
  }

  override async *keys(range: KvRange): AsyncIterable<string> {
    this.ranges.push(range);
    for await (const key of super.keys(range)) {
      this.keysRead += 1;
      yield key;
    }
  }
}

/** Every key of the backend under `prefix`. */
async function keysUnder(store: KvSessionStore, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const key of store.backend.keys({ gte: prefix, lt: `${prefix}\uffff` })) {
    found.push(key);
  }
  return found;
}

const create = (store: KvSessionStore, record: ScheduleRecord, at = 1) =>
  store.createSchedule(record, scheduleAudit(record, 'create', at));

describe('schedules in the key-value stores', () => {
  it('finds 3 due schedules among 10,000 by reading a handful of keys of the index (LevelDB)', async () => {
    const folder = await temps.folder();
    const backend = new CountedReads(join(folder, 'db'));
    await backend.open();
    const store = new KvSessionStore(backend);
    temps.defer(() => store.close());
    const now = 1_000_000;
    const records = [
      ...Array.from({ length: 10_000 }, (_, i) =>
        contractSchedule(`later-${String(i).padStart(5, '0')}`, now + 60_000 + i, {
          userId: `user-${i % 97}`,
        }),
      ),
      contractSchedule('due-1', now - 5, { userId: 'zed' }),
      contractSchedule('due-2', now, { userId: 'amy' }),
      contractSchedule('due-3', now - 5, { userId: 'amy' }),
    ];
    for (let i = 0; i < records.length; i += 1000) {
      await Promise.all(records.slice(i, i + 1000).map((record) => create(store, record)));
    }
    backend.keysRead = 0;
    backend.ranges.length = 0;
    const page = await store.dueSchedules({ until: now, limit: 100 });
    expect(page.due.map((r) => `${r.userId}/${r.id}`)).toEqual([
      'amy/due-3',
      'zed/due-1',
      'amy/due-2',
    ]);
    expect(page.damaged).toEqual([]);
    expect(page.cursor).toBeUndefined();
    expect(page.next).toBe(now + 60_000);
    // 3 index entries, their 3 records, the first key after them: never the 10,000 others.
    expect(backend.keysRead).toBe(7);
    // Every range read is bounded by a limit, so LevelDB's iterator fetches no more either.
    expect(backend.ranges.every((range) => range.limit !== undefined)).toBe(true);
  });

  it('writes each change as one batch: the record, its index entry moved, the audit entry', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const record = contractSchedule('daily', 100, { userId: 'alice' });
    const batches = () => store.stats().batches;
    const before = batches();
    const created = await create(store, record, 10);
    expect(batches()).toBe(before + 1);
    expect(await keysUnder(store, 'k!')).toEqual([scheduleKey(record)]);
    expect(await keysUnder(store, 'w!')).toEqual([scheduleIndexKey(record, 100)]);
    const moved = await store.saveSchedule(
      { ...created, nextAt: 200, dueAt: 200 },
      scheduleAudit(record, 'resume', 20),
    );
    expect(batches()).toBe(before + 2);
    expect(await keysUnder(store, 'w!')).toEqual([scheduleIndexKey(record, 200)]);
    // A save that keeps dueAt leaves the index entry as it is (not rewritten).
    const puts: KvOp[] = [];
    const watched = new MemorySessionStore({ onBatchOp: (_, op) => void puts.push(op) });
    temps.defer(() => watched.close());
    const there = await create(watched, record);
    puts.length = 0;
    await watched.saveSchedule({ ...there, runs: 1 }, undefined);
    expect(puts.map((op) => op.key)).toEqual([scheduleKey(record)]);
    await store.deleteSchedule({ userId: 'alice', id: 'daily' }, moved.version, {
      ...scheduleAudit(record, 'delete', 30),
    });
    expect(batches()).toBe(before + 3);
    expect(await keysUnder(store, 'k!')).toEqual([]);
    expect(await keysUnder(store, 'w!')).toEqual([]);
    const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
    expect(audit.entries.map((e) => e.action)).toEqual(['create', 'resume', 'delete']);
  });

  it('leaves everything as it was when the batch fails to be written', async () => {
    let failOn: string | undefined;
    const store = new MemorySessionStore({
      onBatchOp: (_, op) => {
        if (failOn !== undefined && op.key.startsWith(failOn)) throw new Error('disk full');
      },
    });
    temps.defer(() => store.close());
    const record = contractSchedule('daily', 100, { userId: 'alice' });
    failOn = 'a!'; // the audit entry, last in the batch
    await expect(create(store, record)).rejects.toThrow('disk full');
    expect(await store.getSchedule(record)).toBeUndefined();
    expect(await keysUnder(store, 'w!')).toEqual([]);
    failOn = undefined;
    const created = await create(store, record);
    failOn = 'w!';
    await expect(
      store.saveSchedule({ ...created, dueAt: 500 }, scheduleAudit(record, 'pause', 2)),
    ).rejects.toThrow('disk full');
    await expect(
      store.deleteSchedule(record, 1, scheduleAudit(record, 'delete', 3)),
    ).rejects.toThrow('disk full');
    expect(await store.getSchedule(record)).toEqual(created);
    expect(await keysUnder(store, 'w!')).toEqual([scheduleIndexKey(record, 100)]);
    const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
    expect(audit.entries.map((e) => e.action)).toEqual(['create']);
  });

  it('lets exactly one of twenty writers racing at one version win, and a delete race a save (LevelDB)', async () => {
    const { store } = await temps.open();
    const record = contractSchedule('daily', 100, { userId: 'alice' });
    const created = await create(store, record);
    const racing = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        store.saveSchedule({ ...created, runs: i + 1, dueAt: 200 + i }, undefined),
      ),
    );
    const won = racing.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(won).toHaveLength(1);
    expect(
      racing.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : [])),
    ).toEqual(Array(19).fill('SCHEDULE_CONFLICT'));
    expect(await store.getSchedule(record)).toEqual(won[0]);
    const due = await store.dueSchedules({ until: 1_000, limit: 100 });
    expect(due.due).toEqual([won[0]]);
    const [deleted, saved] = await Promise.allSettled([
      store.deleteSchedule(record, 2, scheduleAudit(record, 'delete', 2)),
      store.saveSchedule({ ...won[0]!, runs: 99 }, undefined),
    ]);
    expect([deleted.status, saved.status]).toEqual(['fulfilled', 'rejected']);
    expect(saved.status === 'rejected' && (saved.reason as { code: string }).code).toBe(
      'SCHEDULE_NOT_FOUND',
    );
    expect(await store.dueSchedules({ until: 1_000, limit: 100 })).toEqual({
      due: [],
      damaged: [],
      cursor: undefined,
      next: undefined,
    });
  });

  it('keys ids and users with separators, percent signs and non-ASCII apart, and pages them', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const users = [undefined, 'x', 'x!y', 'x%21y', 'é'];
    const ids = ['a', 'a!b', 'a%21b', 'a b', 'ü', 'a\u0000'];
    for (const userId of users) {
      for (const id of ids) {
        await create(store, contractSchedule(id, 100, { userId, description: `${userId}/${id}` }));
      }
    }
    for (const userId of users) {
      for (const id of ids) {
        expect((await store.getSchedule({ userId, id }))?.description).toBe(`${userId}/${id}`);
      }
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listSchedules({ userId, limit: 1, cursor });
        listed.push(...page.schedules.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect([...listed].sort()).toEqual([...ids].sort());
    }
    const due = await store.dueSchedules({ until: 100, limit: 1000 });
    expect(due.due).toHaveLength(users.length * ids.length);
    expect(new Set(due.due.map((r) => r.description)).size).toBe(users.length * ids.length);
  });

  it('reports a damaged index entry, an entry without its record, a record apart from its entry and a stray key, and reads on', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const put = (key: string, value: string) => store.backend.write([{ type: 'put', key, value }]);
    for (const [id, dueAt] of [
      ['fine', 100],
      ['hurt', 100],
      ['moved', 100],
      ['later', 900],
    ] as const) {
      await create(store, contractSchedule(id, dueAt, { userId: 'alice' }));
    }
    // An entry rewritten with garbage; one for a schedule never stored; a record whose dueAt is
    // not its entry's (written past the store); a key under the index that is no entry's.
    await put(scheduleIndexKey({ userId: 'alice', id: 'hurt' }, 100), 'garbage');
    const ghost = { userId: 'alice', id: 'ghost' };
    const ghostKey = scheduleIndexKey(ghost, 50);
    await put(ghostKey, encodeStored(ghostKey, { ...ghost, dueAt: 50 }));
    const movedKey = scheduleKey({ userId: 'alice', id: 'moved' });
    const moved = contractSchedule('moved', 100, { userId: 'alice', dueAt: 300 });
    await put(movedKey, encodeStored(movedKey, moved));
    await put('w!not-a-time', 'x');
    const page = await store.dueSchedules({ until: 100, limit: 10 });
    expect(page.due.map((r) => r.id)).toEqual(['fine']);
    expect(page.damaged.map((e) => (e as Error & { code?: string }).code)).toEqual(
      Array(3).fill('INVALID_SESSION_RECORD'),
    );
    expect(page.damaged.map((e) => e.message).join('\n')).toMatch(/without its schedule/);
    expect(page.damaged.map((e) => e.message).join('\n')).toMatch(/differs from its index entry/);
    expect(page.next).toBe(900);
    // The stray key sorts after every entry: reported once the index past `until` reaches it.
    const last = await store.dueSchedules({ until: 1_000, limit: 10 });
    expect(last.damaged.map((e) => e.message).join('\n')).toMatch(/not a schedule index key/);
    expect(last.next).toBeUndefined();
    // A write over a damaged record is refused with the same error, and stores nothing.
    const hurtKey = scheduleKey({ userId: 'alice', id: 'hurt' });
    await put(hurtKey, 'garbage');
    const hurt = contractSchedule('hurt', 100, { userId: 'alice' });
    await expect(store.saveSchedule(hurt, undefined)).rejects.toMatchObject({
      code: 'INVALID_SESSION_RECORD',
      key: hurtKey,
    });
    await expect(
      store.deleteSchedule(hurt, 1, scheduleAudit(hurt, 'delete', 5)),
    ).rejects.toMatchObject({ code: 'INVALID_SESSION_RECORD' });
    expect(await store.backend.get(hurtKey)).toBe('garbage');
    await expect(store.listSchedules({ userId: 'alice' })).rejects.toMatchObject({
      code: 'INVALID_SESSION_RECORD',
      key: hurtKey,
    });
    const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
    expect(audit.entries.map((e) => e.action)).toEqual(Array(4).fill('create'));
  });

  it('refuses bad arguments with a TypeError, reading nothing', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    await create(store, contractSchedule('a', 100, { userId: 'alice' }));
    for (const query of [
      { until: -1, limit: 1 },
      { until: 1.5, limit: 1 },
      { until: 100, limit: 0 },
      { until: 100, limit: 1, after: 'k!u:alice!a' },
    ]) {
      await expect(store.dueSchedules(query)).rejects.toThrow(TypeError);
    }
    for (const query of [
      { userId: 'alice', cursor: 'a!b' },
      { userId: 'alice', cursor: '' },
      { userId: '' },
    ]) {
      await expect(store.listSchedules(query)).rejects.toThrow(TypeError);
    }
    await expect(store.getSchedule({ userId: 'alice', id: '' })).rejects.toThrow(TypeError);
    const record = contractSchedule('b', 100, { userId: 'alice' });
    await expect(store.deleteSchedule(record, 0, scheduleAudit(record, 'delete'))).rejects.toThrow(
      TypeError,
    );
  });

  it('keeps schedules and their index when the LevelDB store is opened again', async () => {
    const { store, path } = await temps.open();
    const record = contractSchedule('daily', 100, { userId: 'alice' });
    const created = await create(store, record);
    await store.close();
    const again = await LevelSessionStore.open({ path });
    temps.defer(() => again.close());
    expect(await again.getSchedule(record)).toEqual(created);
    expect((await again.dueSchedules({ until: 100, limit: 10 })).due).toEqual([created]);
    expect(await again.listSchedules({ userId: 'alice' })).toEqual({
      schedules: [created],
      nextCursor: undefined,
    });
  });
});
