import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import {
  InvalidSessionRecordError,
  SessionNotFoundError,
  SessionSaveFailedError,
  UnsupportedSchemaVersionError,
} from '../../../src/errors/session-errors.js';
import type {
  BatchOpHook,
  KvBackend,
  KvOp,
} from '../../../src/persistence/kv/backends/kv-backend.js';
import type { KvSessionStore } from '../../../src/persistence/kv/kv-session-store.js';
import type { RecordMigration } from '../../../src/persistence/migrations.js';
import { openValue, sealValue } from '../../../src/persistence/sealed-value.js';
import { CURRENT_SCHEMA_VERSION } from '../../../src/persistence/session-record-codec.js';
import { toSessionInfo } from '../../../src/persistence/session-schemas.js';
import { historyKey, listIndexKey, recordKey } from '../../../src/persistence/session-keys.js';
import {
  commitOn,
  entry,
  msg,
  newSession,
  reply,
  usage,
} from '../../../src/store-contract/contract-fixtures.js';

export interface ContractStoreOptions {
  onBatchOp?: BatchOpHook;
  migrations?: RecordMigration[];
}

export interface ContractStore {
  store: KvSessionStore;
  /** Closes the store (if still open) and removes anything it left on disk. */
  cleanup(): Promise<void>;
}

// ---- fixtures: test/helpers/store-fixtures.ts ------------------------------------------------

async function dump(backend: KvBackend): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  for await (const [key, value] of backend.iterate({ gte: '', lt: '\u007f' }))
    entries.set(key, value);
  return entries;
}

async function writeRaw(backend: KvBackend, key: string, value: string): Promise<void> {
  await backend.write([{ type: 'put', key, value }]);
}

/** Lets pending `process.nextTick` callbacks run (warnings are emitted on a later tick). */
const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `IsolationWarning`s emitted while `action` runs. */
async function isolationWarnings(action: () => Promise<unknown>): Promise<Error[]> {
  await nextMacrotask(); // deliver warnings of earlier actions first
  const seen: Error[] = [];
  const listener = (warning: Error): void => {
    if (warning.name === 'IsolationWarning') seen.push(warning);
  };
  process.on('warning', listener);
  try {
    await action();
    await nextMacrotask();
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

/** Runs `action`, waiting for the warnings it emits to be delivered. */
async function settled<T>(action: () => Promise<T>): Promise<T> {
  const result = await action();
  await nextMacrotask();
  return result;
}

// ---- contract -------------------------------------------------------------------------------

/**
 * What the key-value stores (memory, LevelDB) add to the store contract (which
 * `describeStoreContract` in test/helpers/store-contract.ts checks for every store): raw key
 * layout, fault-injected batches, byte counts, envelope migrations.
 */
export function runSessionStoreContract(
  name: string,
  makeStore: (options: ContractStoreOptions) => Promise<ContractStore>,
): void {
  describe(`${name}: SessionStore contract`, () => {
    let handle: ContractStore;
    let store: KvSessionStore;
    const fault: { hook: BatchOpHook | undefined } = { hook: undefined };

    beforeEach(async () => {
      fault.hook = undefined;
      handle = await makeStore({ onBatchOp: (index, op) => fault.hook?.(index, op) });
      store = handle.store;
    });
    afterEach(async () => handle.cleanup());

    it('partitions by userId: another user sees nothing', async () => {
      const alice = { sessionId: 's1', userId: 'alice' };
      const bob = { sessionId: 's1', userId: 'bob' };
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('secret'),
      ]);
      await store.save(commitOn(v1, [], [entry('r', 0)]));
      await expect(store.load(bob)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.list({ userId: 'bob' })).resolves.toEqual({
        sessions: [],
        nextCursor: undefined,
      });
      await expect(store.readHistory(bob)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.readJournal(bob, 'r', 0)).resolves.toBeUndefined();
      await expect(store.purge(bob)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.save(commitOn({ ...v1, userId: 'bob' }, []))).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
      // The same sessionId under bob is a second, unrelated session.
      await store.create(newSession('s1', 'bob'));
      await expect(store.load(bob)).resolves.toMatchObject({
        userId: 'bob',
        version: 1,
        historyLength: 0,
      });
      await expect(store.load(alice)).resolves.toMatchObject({ userId: 'alice', version: 2 });
      await expect(store.readHistory(alice)).resolves.toEqual([msg('secret')]);
      // Anonymous and named users never see each other, whatever the userId looks like.
      await store.create(newSession('s2'));
      for (const userId of ['a', 'u:a', '', 'x!s!a']) {
        await expect(store.load({ sessionId: 's2', userId })).rejects.toBeInstanceOf(
          SessionNotFoundError,
        );
      }
      await expect(store.load({ sessionId: 's1' })).rejects.toBeInstanceOf(SessionNotFoundError);
      const anonymous = await settled(() => store.list());
      expect(anonymous.sessions.map((s) => s.sessionId)).toEqual(['s2']);
    });

    it('warns when listing without userId only if named users exist', async () => {
      await store.create(newSession('anon-1'));
      expect(await isolationWarnings(() => store.list())).toHaveLength(0);
      expect(await isolationWarnings(() => store.list({ status: 'active' }))).toHaveLength(0);
      await store.create(newSession('named-1', 'erin'));
      const warnings = await isolationWarnings(() => store.list());
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.name).toBe('IsolationWarning');
      expect(await isolationWarnings(() => store.list({ userId: 'erin' }))).toHaveLength(0);
    });

    it('purges the record, index, history and journal', async () => {
      const key = { sessionId: 's1', userId: 'alice' };
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      await store.save(commitOn(v1, [reply('yo')], [entry('r1', 0), entry('r2', 3)]));
      await store.create(newSession('s10', 'alice'), []);
      await store.purge(key);
      await expect(store.load(key)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.readHistory(key)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(store.readJournal(key, 'r1', 0)).resolves.toBeUndefined();
      await expect(store.readJournal(key, 'r2', 3)).resolves.toBeUndefined();
      const listed = await store.list({ userId: 'alice' });
      expect(listed.sessions.map((s) => s.sessionId)).toEqual(['s10']);
      const left = [...(await dump(store.backend)).keys()].filter((k) => k.includes('!s1'));
      expect(left.filter((k) => !k.includes('!s10'))).toEqual([]);
      await expect(store.create(newSession('s1', 'alice'))).resolves.toMatchObject({ version: 1 });
    });

    it('applies nothing when a save batch fails half-way', async () => {
      const key = { sessionId: 's1', userId: 'alice' };
      let v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [msg('hi')]);
      v1 = await store.save(commitOn(v1, [], [entry('r', 0)], { userUsageDelta: usage(1, 1, 1) }));
      const before = await dump(store.backend);
      const statsBefore = store.stats();
      const boom = new Error('disk on fire');
      fault.hook = (index) => {
        if (index === 1) throw boom;
      };
      const failed = store.save(
        commitOn(v1, [reply('a'), msg('b')], [entry('r', 1)], { userUsageDelta: usage(1, 1, 1) }),
      );
      await expect(failed).rejects.toBeInstanceOf(SessionSaveFailedError);
      await expect(failed).rejects.toMatchObject({ cause: boom });
      expect(await dump(store.backend)).toEqual(before);
      expect(store.stats()).toEqual(statsBefore);
      await expect(store.load(key)).resolves.toEqual(v1);
      fault.hook = undefined;
      const v3 = await store.save(
        commitOn(v1, [reply('a')], [entry('r', 1)], { userUsageDelta: usage(1, 1, 1) }),
      );
      expect(v3.version).toBe(3);
      await expect(store.readHistory(key)).resolves.toEqual([msg('hi'), reply('a')]);
      await expect(store.userUsage('alice')).resolves.toEqual(usage(2, 2, 2));
    });

    it('rejects corrupt records with a typed error naming the key, changing nothing', async () => {
      const key = { sessionId: 's1', userId: 'alice' };
      const v1 = await store.create({ ...newSession('s1', 'alice'), historyLength: 1 }, [
        msg('hi'),
      ]);
      const rKey = recordKey(key);
      for (const garbage of [
        '{not json',
        JSON.stringify({ schemaVersion: 1, record: { sessionId: 's1' } }),
      ]) {
        await writeRaw(store.backend, rKey, garbage);
        const before = await dump(store.backend);
        await expect(store.load(key)).rejects.toBeInstanceOf(InvalidSessionRecordError);
        await expect(store.load(key)).rejects.toMatchObject({ key: rKey });
        await expect(store.save(commitOn(v1, [msg('x')]))).rejects.toMatchObject({ key: rKey });
        expect(await dump(store.backend)).toEqual(before);
        expect((await dump(store.backend)).get(rKey)).toBe(garbage);
      }
      const hKey = historyKey(key, 0);
      await writeRaw(store.backend, hKey, JSON.stringify({ type: 'message', role: 'robot' }));
      await expect(store.readHistory(key, 0, 1)).rejects.toMatchObject({
        name: 'InvalidSessionRecordError',
        key: hKey,
      });
      const lKey = listIndexKey(key);
      await writeRaw(store.backend, lKey, '[]');
      await expect(store.list({ userId: 'alice' })).rejects.toMatchObject({ key: lKey });
      // A corrupt session can still be purged.
      await store.purge(key);
      await expect(store.load(key)).rejects.toBeInstanceOf(SessionNotFoundError);
    });

    it('refuses records from a newer schema version', async () => {
      const key = { sessionId: 's1' };
      await store.create(newSession('s1'));
      const rKey = recordKey(key);
      const stored = openValue(rKey, (await store.backend.get(rKey)) as string);
      const envelope = JSON.parse(stored.json) as Record<string, unknown>;
      // As a newer agentstate would write it: sealed, with its own schema version.
      const raw = sealValue(rKey, JSON.stringify({ ...envelope, schemaVersion: 99 }));
      await writeRaw(store.backend, rKey, raw);
      const loading = store.load(key);
      await expect(loading).rejects.toBeInstanceOf(UnsupportedSchemaVersionError);
      await expect(loading).rejects.toMatchObject({
        key: rKey,
        found: 99,
        supported: CURRENT_SCHEMA_VERSION,
      });
      await expect(store.backend.get(rKey)).resolves.toBe(raw);
    });

    it('counts the key and value bytes of a save', async () => {
      const v1 = await store.create(newSession('s1', 'alice'));
      const ops: KvOp[] = [];
      fault.hook = (_index, op) => void ops.push(op);
      const before = store.stats();
      await store.save(
        commitOn(v1, [msg('héllo wörld')], [entry('r', 0)], { userUsageDelta: usage(1, 2, 3) }),
      );
      const bytes = ops.reduce(
        (sum, op) =>
          sum + (op.type === 'put' ? Buffer.byteLength(op.key) + Buffer.byteLength(op.value) : 0),
        0,
      );
      expect(ops.length).toBeGreaterThanOrEqual(5);
      expect(bytes).toBeGreaterThan(0);
      expect(store.stats()).toEqual({
        batches: before.batches + 1,
        bytesWritten: before.bytesWritten + bytes,
      });
    });
  });

  describe(`${name}: approval-deadline index`, () => {
    let handle: ContractStore;
    let store: KvSessionStore;
    beforeEach(async () => {
      handle = await makeStore({});
      store = handle.store;
    });
    afterEach(async () => handle.cleanup());

    // The rest of the index's contract is in test/helpers/deadline-contract.ts (every store).
    it('reports a damaged index entry and goes on with the others', async () => {
      for (const id of ['a', 'b', 'c']) {
        await store.create({ ...newSession(id, 'alice'), approvalDeadline: 1_000 });
      }
      const [entryA] = (await store.dueApprovals({ until: 2_000, limit: 10 })).due;
      const raw = await store.backend.get(entryA!.indexKey);
      await writeRaw(store.backend, entryA!.indexKey, raw!.replace('"a"', '"x"'));
      const damaged = await store.dueApprovals({ until: 2_000, limit: 10 });
      expect(damaged.due.map((e) => e.key.sessionId)).toEqual(['b', 'c']);
      expect(damaged.damaged).toHaveLength(1);
      expect(damaged.damaged[0]).toBeInstanceOf(InvalidSessionRecordError);
      expect(damaged.damaged[0]).toMatchObject({ key: entryA!.indexKey });
    });
  });

  describe(`${name}: schema migrations`, () => {
    const key = { sessionId: 'old', userId: 'alice' };
    const { machineVersion, ...current } = { ...newSession('old', 'alice'), version: 4 };
    // Version 0 kept the record under `data` and called the machine version `machine`.
    const v0 = JSON.stringify({ schemaVersion: 0, machine: machineVersion, data: current });
    // Listing entries were unsealed SessionInfo JSON before schema version 2.
    const v0Listing = JSON.stringify(toSessionInfo(current));
    const zeroToOne: RecordMigration = {
      from: 0,
      to: 1,
      migrate: (envelope) => {
        const { data, machine } = envelope as { data: unknown; machine: string };
        return { machineVersion: machine, record: data };
      },
    };

    it('upgrades an older record through registered migrations, without writing', async () => {
      const handle = await makeStore({ migrations: [zeroToOne] });
      try {
        await writeRaw(handle.store.backend, recordKey(key), v0);
        await writeRaw(handle.store.backend, listIndexKey(key), v0Listing);
        await expect(handle.store.load(key)).resolves.toEqual({ ...current, machineVersion });
        await expect(handle.store.backend.get(recordKey(key))).resolves.toBe(v0);
      } finally {
        await handle.cleanup();
      }
    });

    it('rejects an older record when no migration is registered', async () => {
      const handle = await makeStore({});
      try {
        await writeRaw(handle.store.backend, recordKey(key), v0);
        await writeRaw(handle.store.backend, listIndexKey(key), v0Listing);
        await expect(handle.store.load(key)).rejects.toMatchObject({
          name: 'InvalidSessionRecordError',
          key: recordKey(key),
        });
      } finally {
        await handle.cleanup();
      }
    });
  });
}
