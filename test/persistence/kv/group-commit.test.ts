import { afterEach, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SessionConflictError,
  SessionNotFoundError,
  SessionSaveFailedError,
} from '../../../src/errors/session-errors.js';
import type { KvRange } from '../../../src/persistence/key-range.js';
import {
  getAll,
  type KvBackend,
  type KvOp,
} from '../../../src/persistence/kv/backends/kv-backend.js';
import {
  KvSessionStore,
  type KvSessionStoreOptions,
} from '../../../src/persistence/kv/kv-session-store.js';
import { LevelBackend } from '../../../src/persistence/kv/backends/level-backend.js';
import { MemoryBackend } from '../../../src/persistence/kv/backends/memory-backend.js';
import { PendingWrites } from '../../../src/persistence/kv/backends/pending-writes.js';
import { WriteQueue } from '../../../src/persistence/kv/write-queue.js';
import { listIndexKey, recordKey, userTotalsKey } from '../../../src/persistence/session-keys.js';
import type { SessionCommit, SessionRecord } from '../../../src/persistence/session-store.js';
import {
  commitOn,
  entry,
  msg,
  newSession,
  reply,
  usage,
} from '../../../src/store-contract/contract-fixtures.js';
import { deferred, type Deferred } from '../../helpers/session-fixtures.js';
import { tempFolder } from '../../helpers/temp-store.js';

/**
 * A backend passed to the store that records each batch written, can hold the next write until
 * released (so that the saves arriving meanwhile wait, as while LevelDB writes a batch) and can
 * fail a chosen batch (nothing of it applied).
 */
class WatchedBackend implements KvBackend {
  readonly batches: KvOp[][] = [];
  /** Index in `batches` of a batch that throws instead of being written. */
  failBatch: number | undefined;
  private held: { entered: Deferred<void>; release: Deferred<void> } | undefined;

  constructor(private readonly inner: KvBackend) {}

  /** Holds the next write; `entered` resolves once the store has called it. */
  holdNext(): { entered: Promise<void>; release: () => void } {
    const held = { entered: deferred(), release: deferred() };
    this.held = held;
    return { entered: held.entered.promise, release: () => held.release.resolve() };
  }

  async write(ops: KvOp[]): Promise<void> {
    const index = this.batches.push(ops) - 1;
    const held = this.held;
    this.held = undefined;
    if (held) {
      held.entered.resolve();
      await held.release.promise;
    }
    if (index === this.failBatch) throw new Error('disk full');
    await this.inner.write(ops);
  }

  get = (key: string) => this.inner.get(key);
  getMany = (keys: string[]) => getAll(this.inner, keys);
  getManySync = (keys: string[]) => this.inner.getManySync?.(keys);
  iterate = (range: KvRange) => this.inner.iterate(range);
  keys = (range: KvRange) => this.inner.keys(range);
  stats = () => this.inner.stats();
  close = () => this.inner.close();
}

type Kind = 'LevelDB' | 'memory';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function openStore(kind: Kind, options: KvSessionStoreOptions = {}) {
  let inner: KvBackend = new MemoryBackend();
  if (kind === 'LevelDB') {
    const folder = await tempFolder('agentstate-group-');
    const level = new LevelBackend(join(folder, 'db'));
    await level.open();
    inner = level;
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
  }
  const backend = new WatchedBackend(inner);
  const store = new KvSessionStore(backend, options);
  cleanups.unshift(() => store.close());
  return { store, backend };
}

/** Every key and value stored, in key order. */
async function dump(backend: KvBackend): Promise<[string, string][]> {
  const entries: [string, string][] = [];
  for await (const kv of backend.iterate({ gte: '', lt: '\uffff' })) entries.push(kv);
  return entries;
}

/** The record a save of `commit` returns (the store adds one to the version). */
const after = (commit: SessionCommit): SessionRecord => ({
  ...commit.record,
  version: commit.record.version + 1,
});

/** What an operation came to, comparable across stores: its value or its error. */
const outcome = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    (value) => ({ value }),
    (error: Error) => ({ error: error.constructor.name, message: error.message }),
  );

/** Sessions a-e (a, b, e of alice; c of bob) created at version 1, and the lead session. */
async function seed(store: KvSessionStore): Promise<Record<string, SessionRecord>> {
  const records: Record<string, SessionRecord> = {};
  for (const [id, user] of [
    ['lead', 'carol'],
    ['a', 'alice'],
    ['b', 'alice'],
    ['c', 'bob'],
    ['d', 'alice'],
  ] as const) {
    records[id] = await store.create({ ...newSession(id, user), historyLength: 1 }, [
      msg(`hi ${id}`),
    ]);
  }
  return records;
}

/** A session snapshot whose run holds a sub-agent run (stored as a part of its own). */
const withSubRun = (record: SessionRecord, runId: string): SessionCommit => {
  const commit = commitOn(record, [reply('calling a sub-agent')]);
  const child = { src: 'subRun', snapshot: { value: 'x', context: { runId } } };
  const run = { value: 'tools', context: { runId: 'R1', calls: [] }, children: { sub: child } };
  return {
    ...commit,
    record: { ...commit.record, snapshot: { children: { run: { snapshot: run } } } },
  };
};

/**
 * The operations of one group, in call order, each written against the versions the ones
 * before it leave: saves of several sessions, the same session twice, a stale version, a save
 * of a session created in the group, a create of an existing one, sub-agent parts that come
 * and go, owner totals carried from save to save, and a purge with a save after it.
 */
function groupOps(r: Record<string, SessionRecord>): ((s: KvSessionStore) => Promise<unknown>)[] {
  const a1 = commitOn(r['a']!, [reply('a1')], [entry('ra', 0)], {
    userUsageDelta: usage(1, 10, 0.01),
  });
  const a2 = commitOn(after(a1), [msg('a2')], [], { userUsageDelta: usage(1, 5, 0.02) });
  const aStale = commitOn(r['a']!, [reply('stale')]);
  const b1 = commitOn(r['b']!, [reply('b1')], [], { userUsageDelta: usage(2, 1, 0.5) });
  const c1 = commitOn(r['c']!, [reply('c1')], [], { userUsageDelta: usage(1, 1, 1) });
  const eNew = { ...newSession('e', 'alice'), historyLength: 1 };
  const e1 = commitOn({ ...eNew, version: 1 }, [reply('e1')], [], {
    userUsageDelta: usage(1, 2, 0.25),
  });
  const d1 = withSubRun(r['d']!, 'R9');
  const d2 = commitOn(after(d1), [msg('d2')]); // the sub-agent run has ended: its part goes
  const b = { sessionId: 'b', userId: 'alice' };
  const bAfterPurge = commitOn(after(b1), [msg('too late')]);
  return [
    (s) => s.save(a1),
    (s) => s.save(b1),
    (s) => s.save(a2),
    (s) => s.save(aStale),
    (s) => s.save(c1),
    (s) => s.create(eNew, [msg('hi e')]),
    (s) => s.save(e1),
    (s) => s.create(newSession('c', 'bob')),
    (s) => s.save(d1),
    (s) => s.save(d2),
    (s) => s.acquireLease(b, 'w1', 60_000),
    (s) => s.purge(b),
    (s) => s.acquireLease(b, 'w2', 60_000), // after the purge, which dropped w1's lease
    (s) => s.save(bAfterPurge),
    (s) => s.save(commitOn(after(c1), [reply('c2')])),
    (s) => s.save(commitOn(r['c']!, [reply('c stale')])),
  ];
}

describe.each(['LevelDB', 'memory'] as const)('group commit (%s)', (kind) => {
  it('writes a lone save at once, and the saves arriving meanwhile as one batch', async () => {
    const { store, backend } = await openStore(kind);
    const records = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.create(newSession(`s${i}`, `u${i % 3}`))),
    );
    const created = backend.batches.length;
    expect(created).toBeLessThan(20); // the creates, concurrent too, share batches

    const hold = backend.holdNext();
    const first = store.save(commitOn(records[0]!, [msg('first')]));
    await hold.entered; // written without waiting for any other save
    expect(backend.batches.length).toBe(created + 1);
    const rest = records.slice(1).map((r, i) => store.save(commitOn(r, [msg(`m${i + 1}`)])));
    await Promise.resolve();
    expect(backend.batches.length).toBe(created + 1); // they wait for the batch being written
    hold.release();
    const saved = await Promise.all([first, ...rest]);

    expect(backend.batches.length).toBe(created + 2);
    expect(backend.batches[created + 1]!.filter((op) => op.key.startsWith('s!'))).toHaveLength(19);
    for (const [i, record] of saved.entries()) {
      expect(record.version).toBe(2);
      await expect(store.load(records[i]!)).resolves.toEqual(record);
      const said = i === 0 ? 'first' : `m${i}`;
      await expect(store.readHistory(records[i]!)).resolves.toEqual([msg(said)]);
    }
    const listed = await store.list({ userId: 'u1' });
    expect(listed.sessions.map((s) => s.version)).toEqual(listed.sessions.map(() => 2));
  });

  it('checks each operation of a group as if they ran one after the other', async () => {
    const clock = { now: () => 5_000 };
    const grouped = await openStore(kind, { clock });
    const sequential = await openStore(kind, { clock });
    const rg = await seed(grouped.store);
    const rs = await seed(sequential.store);
    const lead = (r: Record<string, SessionRecord>) => commitOn(r['lead']!, [reply('lead')]);

    const outcomesSequential: unknown[] = [await outcome(sequential.store.save(lead(rs)))];
    for (const op of groupOps(rs)) outcomesSequential.push(await outcome(op(sequential.store)));

    const before = grouped.backend.batches.length;
    const hold = grouped.backend.holdNext();
    const leadSave = outcome(grouped.store.save(lead(rg)));
    await hold.entered;
    const pending = groupOps(rg).map((op) => outcome(op(grouped.store)));
    hold.release();
    const outcomesGrouped = await Promise.all([leadSave, ...pending]);

    expect(outcomesGrouped).toEqual(outcomesSequential);
    expect(await dump(grouped.backend)).toEqual(await dump(sequential.backend));
    const b = { sessionId: 'b', userId: 'alice' };
    expect(await grouped.store.leaseOf(b)).toEqual(await sequential.store.leaseOf(b));
    expect(await grouped.store.leaseOf(b)).toMatchObject({ owner: 'w2' });
    // The lead alone, then one batch up to the purge (which ends its group: the lease it drops
    // once written is not the one acquired after it), then the rest.
    expect(grouped.backend.batches.length - before).toBe(3);
    expect(sequential.backend.batches.length).toBeGreaterThan(before + 9);

    const errors = outcomesGrouped.flatMap((o) => ('error' in (o as object) ? [o] : []));
    expect(errors).toEqual([
      expect.objectContaining({ error: SessionConflictError.name }), // a, stale
      expect.objectContaining({ error: SessionConflictError.name }), // c created twice
      expect.objectContaining({ error: SessionNotFoundError.name }), // b after its purge
      expect.objectContaining({ error: SessionConflictError.name }), // c, stale
    ]);
    // a's second save saw its first; alice's totals add a, a, b (purged: totals stay) and e.
    await expect(grouped.store.load(rg['a']!)).resolves.toMatchObject({ version: 3 });
    expect(await grouped.store.readHistory(rg['a']!)).toEqual([
      msg('hi a'),
      reply('a1'),
      msg('a2'),
    ]);
    await expect(grouped.store.userUsage('alice')).resolves.toEqual({
      turns: 5,
      inputTokens: 18,
      outputTokens: 36,
      costUsd: 0.78,
    });
    const listed = await grouped.store.list({ userId: 'alice' });
    expect(listed.sessions.map((s) => [s.sessionId, s.version])).toEqual([
      ['a', 3],
      ['d', 3],
      ['e', 2],
    ]);
    // d's sub-agent part, written and deleted in the same batch (the second save saw it).
    const parts = grouped.backend.batches[before + 1]!.filter((op) => op.key.startsWith('r!'));
    expect(parts.map((op) => op.type)).toEqual(['put', 'del']);
    expect((await dump(grouped.backend)).filter(([k]) => k.startsWith('r!'))).toEqual([]);
  });

  it('fails every save of a batch that fails, keeping the old values, and goes on', async () => {
    const { store, backend } = await openStore(kind);
    const r = await seed(store);
    const hold = backend.holdNext();
    const lead = store.save(commitOn(r['lead']!, [reply('lead')]));
    await hold.entered;
    backend.failBatch = backend.batches.length; // the group's batch
    const stored = await dump(backend);
    const a1 = commitOn(r['a']!, [reply('a1')], [], { userUsageDelta: usage(1, 1, 0.1) });
    const group = [
      store.save(a1),
      store.save(commitOn(after(a1), [msg('a2')])),
      store.save(commitOn(r['b']!, [reply('b1')], [], { userUsageDelta: usage(1, 1, 0.1) })),
      store.save(commitOn({ ...r['c']!, version: 7 }, [reply('stale')])),
    ].map(outcome);
    hold.release();
    await expect(lead).resolves.toMatchObject({ version: 2 });
    const failed = await Promise.all(group);

    expect(failed).toEqual([
      { error: SessionSaveFailedError.name, message: expect.stringContaining('"a"') as unknown },
      { error: SessionSaveFailedError.name, message: expect.stringContaining('"a"') as unknown },
      { error: SessionSaveFailedError.name, message: expect.stringContaining('"b"') as unknown },
      { error: SessionConflictError.name, message: expect.any(String) as unknown }, // failed its check alone
    ]);
    const leadKeys = new Set(backend.batches.at(-2)!.map((op) => op.key));
    const unchanged = (await dump(backend)).filter(([key]) => !leadKeys.has(key));
    expect(unchanged).toEqual(stored.filter(([key]) => !leadKeys.has(key)));
    await expect(store.load(r['a']!)).resolves.toEqual(r['a']);
    await expect(store.userUsage('alice')).resolves.toEqual(usage(0, 0, 0));

    // The store remembers nothing of the failed batch: the old versions save, and then again.
    const again = await store.save(a1);
    await expect(store.save(commitOn(again, [msg('a2')]))).resolves.toMatchObject({ version: 3 });
    await expect(store.userUsage('alice')).resolves.toEqual(usage(1, 1, 0.1));
    const raw = await backend.get(userTotalsKey('alice'));
    expect(raw).toBeDefined();
    await expect(backend.get(listIndexKey(r['a']!))).resolves.toContain('"version":3');
    await expect(backend.get(recordKey(r['b']!))).resolves.toBeDefined();
  });

  it('bounds a group by ops and by size', async () => {
    for (const [limits, perBatch] of [
      // 5 ops a save (record, listing entry, item, the `updated` list-order entry moved: a del
      // and a put): the group stops once it holds 9 or more
      [{ ops: 9, units: 1e9 }, 2],
      [{ ops: 1e9, units: 1 }, 1],
    ] as const) {
      const { store, backend } = await openStore(kind, { groupLimits: limits });
      const records: SessionRecord[] = [];
      for (let i = 0; i < 11; i++) records.push(await store.create(newSession(`s${i}`)));
      const hold = backend.holdNext();
      const first = store.save(commitOn(records[0]!, [msg('x')]));
      await hold.entered;
      const before = backend.batches.length;
      expect(backend.batches.at(-1)).toHaveLength(5);
      const rest = records.slice(1).map((r) => store.save(commitOn(r, [msg('x')])));
      hold.release();
      await Promise.all([first, ...rest]);
      const sizes = backend.batches.slice(before).map((ops) => ops.length);
      expect(sizes).toEqual(Array.from({ length: 10 / perBatch }, () => 5 * perBatch));
    }
  });
});

describe('the pending writes of a group, read over the backend', () => {
  it('reads values and ranges (limits, reverse) as the backend will hold them', async () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // Two kinds of key (the view indexes a kind once a read asks for one of it).
    const key = (): string => `${random(3) ? 'k' : 'j'}${random(40).toString().padStart(2, '0')}`;
    for (let round = 0; round < 30; round++) {
      const base = new MemoryBackend();
      await base.write(
        Array.from({ length: 20 }, () => ({ type: 'put', key: key(), value: 'old' })),
      );
      const view = new PendingWrites(base);
      const expected = new MemoryBackend();
      await expected.write(
        await dump(base).then((kvs) =>
          kvs.map(([k, value]) => ({ type: 'put' as const, key: k, value })),
        ),
      );
      for (let batch = 0; batch < 3; batch++) {
        const ops: KvOp[] = Array.from({ length: 6 }, () =>
          random(2)
            ? { type: 'put', key: key(), value: `v${round}.${batch}` }
            : { type: 'del', key: key() },
        );
        view.add(ops);
        await expected.write(ops);
        // A read between the adds, as a later check of the group makes.
        const between = key();
        await expect(view.get(between)).resolves.toEqual(await expected.get(between));
      }
      const probe = [key(), key(), key()];
      await expect(view.getMany(probe)).resolves.toEqual(await expected.getMany(probe));
      await expect(view.get(probe[0]!)).resolves.toEqual(await expected.get(probe[0]!));
      const [from, to] = [key(), key()].sort();
      for (const range of [
        { gte: from!, lt: to! },
        { gte: from!, lt: to!, limit: 1 + random(4) },
        { gte: from!, lt: to!, limit: 1 + random(4), reverse: true },
        { gte: 'k', lt: 'l', reverse: true },
        { gte: 'j', lt: 'l', limit: 5 },
      ]) {
        const seen: string[] = [];
        for await (const k of view.keys(range)) seen.push(k);
        const want: string[] = [];
        for await (const k of expected.keys(range)) want.push(k);
        expect(seen).toEqual(want);
      }
    }
  });
});

describe('WriteQueue: a check refused on its group’s earlier write', () => {
  it('is told once that write is stored, so reading again sees what beat it', async () => {
    const backend = new WatchedBackend(new MemoryBackend());
    const queue = new WriteQueue(backend);
    const failed = (error: unknown) => error;
    const held = backend.holdNext();
    const first = queue.run(
      () => Promise.resolve({ ops: [{ type: 'put', key: 'k', value: '1' }], written: () => 1 }),
      failed,
    );
    // queued in the same turn: checked in the same group, against the first's pending write
    const second = queue.run(async (view) => {
      if ((await view.get('k')) !== undefined) throw new Error('taken');
      return { ops: [{ type: 'put', key: 'k', value: '2' }], written: () => 2 };
    }, failed);
    let released = false;
    const refusal = second.then(
      () => 'resolved',
      () => (released ? 'after the write' : 'before the write'),
    );
    await held.entered;
    await new Promise<void>((resolve) => setImmediate(resolve));
    released = true;
    held.release();
    expect(await first).toBe(1);
    expect(await refusal).toBe('after the write');
    expect(await backend.get('k')).toBe('1');
  });
});
