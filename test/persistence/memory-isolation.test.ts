import { afterEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import type { Memory, MemoryInput, MemoryStore } from '../../src/persistence/memory-store.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 43, "Isolation": 1,000 memories for each of 3 users, in their own scope and in 2
 * resources each; every read and search path, for each user and resource, returns only their
 * own: 0 results cross users. The users share resource names, half their ids and every vector,
 * so a path that mixed them up would find another user's memory as well as their own.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const USERS = ['alice', 'bob', 'carol'] as const;
const RESOURCES = [undefined, 'r1', 'r2'] as const;
const PER_USER = 1000;
const DIMENSIONS = 16;

/** The same vector for the same `i`, whoever's memory it is. */
function vectorOf(i: number): number[] {
  return Array.from({ length: DIMENSIONS }, (_, d) => Math.sin((i + 1) * (d + 1)));
}

/** Ids below 500 are the same for every user; the others name their user. */
function idOf(userId: string, i: number): string {
  return i < PER_USER / 2 ? `m-${i}` : `${userId}-${i}`;
}

function memoriesOf(userId: string): MemoryInput[] {
  return Array.from({ length: PER_USER }, (_, i) => {
    const resource = RESOURCES[i % 3];
    return {
      id: idOf(userId, i),
      userId,
      ...(resource === undefined ? {} : { resource }),
      kind: i % 2 ? 'fact' : 'message',
      text: `${userId} said ${i}`,
      sessionId: `${userId}-s${i % 7}`,
      at: i,
      model: 'embed',
      vector: vectorOf(i),
    };
  });
}

/** Counts the memories a path returned that are not `userId`'s (or not of `resource`). */
class Tally {
  crossUser = 0;
  crossResource = 0;
  seen = 0;

  check(memories: readonly Memory[], userId: string, resource?: string): void {
    for (const memory of memories) {
      this.seen += 1;
      if (memory.userId !== userId || !memory.text.startsWith(`${userId} said `)) {
        this.crossUser += 1;
      }
      if (resource !== undefined && memory.resource !== resource) this.crossResource += 1;
    }
  }
}

async function allPages(
  store: MemoryStore,
  query: { userId?: string; resource?: string },
): Promise<Memory[]> {
  const memories: Memory[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listMemories({ ...query, limit: 97, cursor });
    memories.push(...page.memories);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return memories;
}

async function checkIsolation(store: MemoryStore): Promise<Tally> {
  for (const userId of USERS) await store.putMemories(memoriesOf(userId));
  for (const userId of USERS) {
    for (const resource of RESOURCES) {
      await store.writeWorkingMemory(
        { userId, resource },
        { content: `${userId} said notes`, expectedVersion: 0, opId: 'first', at: 1 },
      );
    }
  }
  const tally = new Tally();
  for (const userId of USERS) {
    const mine = (resource?: string) =>
      memoriesOf(userId).filter((m) => resource === undefined || m.resource === resource).length;
    // Search: the whole user, then each resource, for queries every user's memories match.
    for (const resource of [undefined, 'r1', 'r2']) {
      for (const i of [0, 1, 2, 501, 999]) {
        const query = { userId, resource, model: 'embed', vector: vectorOf(i), topK: 1000 };
        const found = await store.searchMemories(query);
        expect(found).toHaveLength(mine(resource));
        tally.check(
          found.map((f) => f.memory),
          userId,
          resource,
        );
        const best = await store.searchMemories({ ...query, topK: 1, excludeSessionId: 'none' });
        expect(best).toHaveLength(1);
        tally.check(
          best.map((f) => f.memory),
          userId,
          resource,
        );
      }
    }
    // List: every page, of the whole user and of each resource.
    const listed = await allPages(store, { userId });
    expect(listed).toHaveLength(PER_USER);
    tally.check(listed, userId);
    for (const resource of ['r1', 'r2']) {
      const pages = await allPages(store, { userId, resource });
      expect(pages).toHaveLength(mine(resource));
      tally.check(pages, userId, resource);
    }
    // Get: every user's ids, the shared ones read as this user's own.
    const everyId = USERS.flatMap((u) => memoriesOf(u).map((m) => m.id));
    const got = await store.getMemories({ userId }, everyId);
    expect(got).toHaveLength(PER_USER);
    tally.check(got, userId);
    // Resources: their own counts, under names every user shares.
    expect(await store.memoryResources({ userId })).toEqual([
      { memories: mine() - mine('r1') - mine('r2'), workingMemory: true },
      { resource: 'r1', memories: mine('r1'), workingMemory: true },
      { resource: 'r2', memories: mine('r2'), workingMemory: true },
    ]);
    for (const resource of RESOURCES) {
      const record = await store.readWorkingMemory({ userId, resource });
      expect(record?.content).toBe(`${userId} said notes`);
    }
  }
  // Delete: another user's own ids remove nothing of theirs.
  for (const userId of USERS) {
    const others = USERS.filter((u) => u !== userId).flatMap((u) =>
      memoriesOf(u)
        .map((m) => m.id)
        .filter((id) => id.startsWith(`${u}-`)),
    );
    expect(await store.deleteMemories({ userId }, others)).toBe(0);
  }
  for (const userId of USERS) {
    expect((await allPages(store, { userId })).length).toBe(PER_USER);
  }
  // The anonymous bucket sees none of it.
  expect(await store.listMemories({})).toEqual({ memories: [], nextCursor: undefined });
  expect(await store.searchMemories({ model: 'embed', vector: vectorOf(0), topK: 1000 })).toEqual(
    [],
  );
  expect(await store.getMemories({}, ['m-0'])).toEqual([]);
  expect(await store.memoryResources({})).toEqual([]);
  expect(await store.readWorkingMemory({})).toBeUndefined();
  return tally;
}

describe('memory isolation: 1,000 memories for each of 3 users', () => {
  it('on LevelDB: every read and search path returns only the user’s own', async () => {
    const { store } = await temps.open();
    const tally = await checkIsolation(store);
    expect(tally.seen).toBeGreaterThan(3 * 4 * PER_USER);
    expect({ crossUser: tally.crossUser, crossResource: tally.crossResource }).toEqual({
      crossUser: 0,
      crossResource: 0,
    });
  });

  it('on the memory store: every read and search path returns only the user’s own', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const tally = await checkIsolation(store);
    expect(tally.seen).toBeGreaterThan(3 * 4 * PER_USER);
    expect({ crossUser: tally.crossUser, crossResource: tally.crossResource }).toEqual({
      crossUser: 0,
      crossResource: 0,
    });
  });
});
