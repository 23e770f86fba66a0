import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidSessionRecordError } from '../../../src/errors/session-errors.js';
import { LevelSessionStore } from '../../../src/persistence/kv/level-session-store.js';
import { MemorySessionStore } from '../../../src/persistence/kv/memory-session-store.js';
import { encodeStored } from '../../../src/persistence/session-schemas.js';
import {
  commitOn,
  newSession,
  newWorkflow,
} from '../../../src/store-contract/contract-fixtures.js';
import { tempFolder } from '../../helpers/temp-store.js';

/** The key-value stores' list-order index (`x!` entries): kept by each save, built for old stores. */
describe('the list-order index of the key-value stores', () => {
  it('is built once for an owner of a store written before it, in one batch', async () => {
    const folder = await tempFolder();
    const path = join(folder, 'db');
    try {
      let store = await LevelSessionStore.open({ path });
      for (let i = 0; i < 5; i++) {
        await store.create({
          ...newSession(`s${i}`, 'alice'),
          updatedAt: 1_000 + i,
          awaitingApproval: i === 1,
        });
      }
      // What a store of the previous layout holds: no order entries and no marker.
      const old: string[] = [];
      for await (const key of store.backend.keys({ gte: 'n!', lt: 'n"' })) old.push(key);
      for await (const key of store.backend.keys({ gte: 'x!', lt: 'x"' })) old.push(key);
      expect(old.length).toBe(1 + 5 * 5); // the marker, and 4 orders and the ids of each session
      await store.backend.write(old.map((key) => ({ type: 'del' as const, key })));
      await store.close();
      store = await LevelSessionStore.open({ path });
      const before = store.stats().batches;
      const page = await store.list({ userId: 'alice', order: 'updated', limit: 3 });
      expect(page.sessions.map((s) => s.sessionId)).toEqual(['s1', 's4', 's3']);
      const rest = await store.list({ userId: 'alice', order: 'updated', cursor: page.nextCursor });
      expect(rest.sessions.map((s) => s.sessionId)).toEqual(['s2', 's0']);
      expect(store.stats().batches).toBe(before + 1);
      await store.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('moves with each save in the same batch, and a stale entry is named, not listed', async () => {
    const folder = await tempFolder();
    try {
      const store = await LevelSessionStore.open({ path: join(folder, 'db') });
      const a = await store.create({ ...newSession('a', 'alice'), updatedAt: 1_000 });
      await store.create({ ...newSession('b', 'alice'), updatedAt: 2_000 });
      const before = store.stats().batches;
      await store.save({ ...commitOn(a, []), record: { ...a, updatedAt: 3_000 } });
      expect(store.stats().batches).toBe(before + 1);
      const ids = async () =>
        (await store.list({ userId: 'alice', order: 'updated' })).sessions.map((s) => s.sessionId);
      expect(await ids()).toEqual(['a', 'b']);
      // An entry left where the session no longer stands (damage) is refused by name.
      const stale = 'x!u:alice!updated!1!0000000000000000!a';
      const { encodeStored } = await import('../../../src/persistence/session-schemas.js');
      await store.backend.write([
        { type: 'put', key: stale, value: encodeStored(stale, { sessionId: 'a' }) },
      ]);
      await expect(ids()).rejects.toBeInstanceOf(InvalidSessionRecordError);
      await expect(ids()).rejects.toMatchObject({ key: stale });
      await store.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('files workflow instances in indexes of their own: when built, saved, and checked on read', async () => {
    const store = new MemorySessionStore();
    for (let i = 0; i < 3; i++) {
      await store.create({ ...newSession(`s${i}`, 'alice'), updatedAt: 1_000 + i });
      await store.create({ ...newWorkflow(`o${i}`, 'alice'), updatedAt: 2_000 + i });
    }
    const indexKeys = async () => {
      const found: string[] = [];
      for await (const key of store.backend.keys({ gte: 'x!', lt: 'x"' })) found.push(key);
      return found;
    };
    const written = await indexKeys();
    expect(written.filter((k) => k.startsWith('x!u:alice!workflow-updated!'))).toEqual([
      'x!u:alice!workflow-updated!1!9007199254738989!workflow%3Ao2',
      'x!u:alice!workflow-updated!1!9007199254738990!workflow%3Ao1',
      'x!u:alice!workflow-updated!1!9007199254738991!workflow%3Ao0',
    ]);
    expect(written.filter((k) => k.startsWith('x!u:alice!updated!'))).toHaveLength(3);
    // An owner of a store written before the index gets both kinds filed, each in its own.
    await store.backend.write(
      [...written, 'n!u:alice'].map((key) => ({ type: 'del' as const, key })),
    );
    const ids = async (kind?: 'workflow') =>
      (await store.list({ userId: 'alice', kind, order: 'updated' })).sessions.map(
        (s) => s.sessionId,
      );
    expect(await ids('workflow')).toEqual(['workflow:o2', 'workflow:o1', 'workflow:o0']);
    expect(await ids()).toEqual(['s2', 's1', 's0']);
    expect(await indexKeys()).toEqual(written);
    // A session's entry filed in the workflow index (damage) is named, never listed there.
    const moved = 'x!u:alice!workflow-id!1!s0';
    await store.backend.write([
      { type: 'put', key: moved, value: encodeStored(moved, { sessionId: 's0' }) },
    ]);
    const inIdOrder = store.list({ userId: 'alice', kind: 'workflow', order: 'id' });
    await expect(inIdOrder).rejects.toMatchObject({
      code: 'INVALID_SESSION_RECORD',
      key: moved,
    });
    await store.close();
  });
});
