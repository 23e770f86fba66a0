import { describe, it, expect, afterEach } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LevelSessionStore } from '../../../src/persistence/kv/level-session-store.js';
import { emptyTotals, type SessionRecord } from '../../../src/persistence/session-store.js';
import { listIndexKey, recordKey } from '../../../src/persistence/session-keys.js';
import { InvalidSessionRecordError } from '../../../src/errors/session-errors.js';
import { runSessionStoreContract } from './session-store.contract.js';

async function tempFolder(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'agentstate-level-'));
}

runSessionStoreContract('LevelSessionStore', async (options) => {
  const folder = await tempFolder();
  const store = await LevelSessionStore.open({ path: join(folder, 'db'), ...options });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
});

/** Counts the native reads of a store's database (its backend's own `level` instance). */
function countNativeReads(store: LevelSessionStore): () => number {
  const db = (store.backend as unknown as { db: Record<string, (...a: unknown[]) => unknown> }).db;
  let reads = 0;
  for (const method of ['get', 'getMany', 'getSync']) {
    const original = db[method]!.bind(db);
    db[method] = (...args: unknown[]) => {
      reads += 1;
      return original(...args);
    };
  }
  return () => reads;
}

describe('LevelSessionStore on disk', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  it('keeps what was saved across store instances', async () => {
    const folder = await tempFolder();
    folders.push(folder);
    const path = join(folder, 'db');
    const key = { sessionId: 'chat-1', userId: 'alice' };
    const first = await LevelSessionStore.open({ path });
    const v1 = await first.create(
      {
        ...key,
        status: 'active',
        createdAt: 1,
        updatedAt: 1,
        parentId: undefined,
        historyLength: 1,
        usage: emptyTotals(),
        machineVersion: 'm@1',
        snapshot: { value: 'idle' },
      },
      [{ type: 'message', role: 'user', content: 'hi' }],
    );
    const v2 = await first.save({
      record: { ...v1, historyLength: 2, updatedAt: 2, snapshot: { value: 'done' } },
      items: [{ type: 'message', role: 'assistant', content: 'hello' }],
      journal: [
        {
          runId: 'r1',
          step: 0,
          kind: 'model',
          output: {
            text: 'hello',
            toolCalls: [],
            usage: { inputTokens: 3, outputTokens: 4, cachedTokens: 0 },
          },
          at: 2,
        },
      ],
      userUsageDelta: { turns: 1, inputTokens: 3, outputTokens: 4, costUsd: 0.01 },
    });
    await first.close();

    const second = new LevelSessionStore({ path });
    try {
      await expect(second.load(key)).resolves.toEqual(v2);
      await expect(second.readHistory(key)).resolves.toHaveLength(2);
      await expect(second.readJournal(key, 'r1', 0)).resolves.toMatchObject({
        output: { text: 'hello' },
      });
      await expect(second.list({ userId: 'alice' })).resolves.toMatchObject({
        sessions: [{ version: 2 }],
      });
      await expect(second.userUsage('alice')).resolves.toMatchObject({ turns: 1, costUsd: 0.01 });
      expect(second.stats()).toEqual({ batches: 0, bytesWritten: 0 });
    } finally {
      await second.close();
    }
  });

  it('refuses to open a folder another store holds open', async () => {
    const folder = await tempFolder();
    folders.push(folder);
    const path = join(folder, 'db');
    const first = await LevelSessionStore.open({ path });
    try {
      await expect(LevelSessionStore.open({ path })).rejects.toThrow();
    } finally {
      await first.close();
    }
  });

  it('reads back the keys it wrote or read last without a native read, and reads what any write left there', async () => {
    const folder = await tempFolder();
    folders.push(folder);
    const path = join(folder, 'db');
    const key = { sessionId: 'chat-1', userId: 'alice' };
    const store = await LevelSessionStore.open({ path });
    const nativeReads = countNativeReads(store);
    const record: Omit<SessionRecord, 'version'> = {
      ...key,
      status: 'active',
      createdAt: 1,
      updatedAt: 1,
      parentId: undefined,
      historyLength: 0,
      usage: emptyTotals(),
      machineVersion: 'm@1',
      snapshot: { value: 'idle' },
    };
    try {
      const v1 = await store.create(record);
      const before = nativeReads();
      const usage = { turns: 1, inputTokens: 3, outputTokens: 4, costUsd: 0.01 };
      const v2 = await store.save({ record: v1, items: [], journal: [], userUsageDelta: usage });
      await expect(store.loadForUpdate(key, v2)).resolves.toMatchObject({
        record: v2,
        userUsage: { turns: 1 },
      });
      await expect(store.load(key)).resolves.toEqual(v2);
      // The record, its changes, listing entry and the owner's totals: all as this store wrote them.
      expect(nativeReads()).toBe(before);

      // A write behind the store's back (a tool, damage) is what the next read finds: checked.
      const rKey = recordKey(key);
      const raw = (await store.backend.get(rKey))!;
      const flipped = raw.replace('"sessionId":"chat-1"', '"sessionId":"chat-2"');
      await store.backend.write([{ type: 'put', key: rKey, value: flipped }]);
      await expect(store.loadForUpdate(key, v2)).rejects.toBeInstanceOf(InvalidSessionRecordError);
      await expect(store.save({ record: v2, items: [], journal: [] })).rejects.toMatchObject({
        key: rKey,
      });
      await store.backend.write([
        { type: 'del', key: rKey },
        { type: 'del', key: listIndexKey(key) },
      ]);
      await expect(store.load(key)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
      expect(nativeReads()).toBe(before);
    } finally {
      await store.close();
    }

    // Another store on the folder (the first one closed) knows nothing of it: it reads, once.
    const second = await LevelSessionStore.open({ path });
    const reads = countNativeReads(second);
    try {
      await expect(second.userUsage('alice')).resolves.toMatchObject({ turns: 1 });
      await expect(second.load(key)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
      expect(reads()).toBe(2);
      await expect(second.userUsage('alice')).resolves.toMatchObject({ turns: 1 });
      await expect(second.load(key)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
      expect(reads()).toBe(2);
    } finally {
      await second.close();
    }
  });
});
