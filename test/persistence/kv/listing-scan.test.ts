import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../../src/persistence/kv/backends/memory-backend.js';
import { KvSessionStore } from '../../../src/persistence/kv/kv-session-store.js';
import type { KvRange } from '../../../src/persistence/key-range.js';
import { encodeStored } from '../../../src/persistence/session-schemas.js';
import { newSession, newWorkflow } from '../../../src/store-contract/contract-fixtures.js';

/** A memory backend that counts the listing entries (`l!`) its range reads hand out. */
class CountingBackend extends MemoryBackend {
  listingsRead = 0;

  override async *iterate(range: KvRange): AsyncIterable<[string, string]> {
    for await (const entry of super.iterate(range)) {
      if (entry[0].startsWith('l!')) this.listingsRead += 1;
      yield entry;
    }
  }
}

/** Sessions on both sides of 200 workflow instances of the same owner. */
async function mixedOwner() {
  const backend = new CountingBackend();
  const store = new KvSessionStore(backend);
  for (const id of ['a1', 'a2', 'z1']) await store.create(newSession(id, 'alice'));
  for (let i = 0; i < 200; i++) {
    await store.create(newWorkflow(`o${String(i).padStart(3, '0')}`, 'alice'));
  }
  return { backend, store };
}

const ids = (page: { sessions: { sessionId: string }[] }) => page.sessions.map((s) => s.sessionId);

describe('a page by id of one kind (the key-value stores)', () => {
  it('passes over a run of the other kind without reading it', async () => {
    const { backend, store } = await mixedOwner();
    const first = await store.list({ userId: 'alice', limit: 2 });
    expect(ids(first)).toEqual(['a1', 'a2']);
    const rest = await store.list({ userId: 'alice', limit: 2, cursor: first.nextCursor });
    expect(ids(rest)).toEqual(['z1']);
    expect(rest.nextCursor).toBeUndefined();
    // Both pages read a handful of listing entries, not the 200 instances between.
    expect(backend.listingsRead).toBeLessThan(10);
    backend.listingsRead = 0;
    const instances = await store.list({ userId: 'alice', kind: 'workflow', limit: 5 });
    expect(ids(instances)).toEqual(
      ['o000', 'o001', 'o002', 'o003', 'o004'].map((o) => `workflow:${o}`),
    );
    expect(backend.listingsRead).toBeLessThan(10);
    await store.close();
  });

  it('files the ids of an owner marked before them once, when a page first passes over the other kind', async () => {
    const { backend, store } = await mixedOwner();
    // An owner whose index was made whole by the previous version: orders only, no ids.
    const idKeys: string[] = [];
    for await (const key of backend.keys({ gte: 'x!', lt: 'x"' })) {
      if (key.includes('-ids!')) idKeys.push(key);
    }
    expect(idKeys).toHaveLength(203);
    await backend.write([
      ...idKeys.map((key) => ({ type: 'del' as const, key })),
      { type: 'put', key: 'n!u:alice', value: encodeStored('n!u:alice', { version: 1 }) },
    ]);
    const before = store.stats().batches;
    const all = await store.list({ userId: 'alice', limit: 10 });
    expect(ids(all)).toEqual(['a1', 'a2', 'z1']);
    expect(store.stats().batches).toBe(before + 1);
    const filed: string[] = [];
    for await (const key of backend.keys({ gte: 'x!', lt: 'x"' })) {
      if (key.includes('-ids!')) filed.push(key);
    }
    expect(filed).toEqual(idKeys);
    expect(ids(await store.list({ userId: 'alice', limit: 10 }))).toEqual(['a1', 'a2', 'z1']);
    expect(store.stats().batches).toBe(before + 1);
    await store.close();
  });
});
