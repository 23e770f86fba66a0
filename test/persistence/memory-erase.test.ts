import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import type { MemoryInput } from '../../src/persistence/memory-store.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 43, "Erase": after `forgetMemories`, a byte scan of every file of the LevelDB folder
 * (log, tables, manifest) finds none of the forgotten texts or vectors, while another user's,
 * and the scopes not forgotten, are still there (so the scan would see them).
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A deterministic generator of numbers in [0, 1) (tests must not differ from run to run). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const DIMENSIONS = 64;

interface Planted {
  memory: MemoryInput;
  /** What the files hold of it: its text, and its vector as stored (base64 of its bytes). */
  stored: string[];
}

/**
 * Memories of random letters and random vectors: LevelDB compresses its tables (Snappy), which
 * replaces a repeated run of 4 bytes or more by a copy, so a long stored text is sure to be
 * whole in a file only in pieces; each piece (`windows`) is long enough to be found nowhere else.
 */
function plant(
  userId: string,
  resource: string | undefined,
  count: number,
  seed: number,
): Planted[] {
  const random = seeded(seed);
  const letters = (n: number) =>
    Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
  return Array.from({ length: count }, (_, i) => {
    const vector = new Float32Array(DIMENSIONS).map(() => random() * 2 - 1);
    const memory: MemoryInput = {
      id: `${resource ?? 'own'}-${i}`,
      userId,
      ...(resource === undefined ? {} : { resource }),
      kind: 'fact',
      text: letters(48),
      at: i,
      model: 'embed',
      vector,
    };
    return { memory, stored: [memory.text, Buffer.from(vector.buffer).toString('base64')] };
  });
}

/** The 12-character pieces of `text` at every 6th position: what a scan looks for. */
function windows(text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at + 12 <= text.length; at += 6) pieces.push(text.slice(at, at + 12));
  return pieces;
}

/** Every file's bytes in the folder, concatenated as one latin1 text to search. */
async function folderBytes(path: string): Promise<string> {
  const files = await readdir(path);
  const bytes = await Promise.all(files.map((name) => readFile(join(path, name))));
  return Buffer.concat(bytes).toString('latin1');
}

/** The planted texts and vectors with a piece in the folder's files. */
function found(bytes: string, planted: readonly Planted[]): string[] {
  return planted.flatMap((p) =>
    p.stored.filter((stored) => windows(stored).some((piece) => bytes.includes(piece))),
  );
}

const everything = (planted: readonly Planted[]) => planted.flatMap((p) => p.stored);

async function storeWith(groups: readonly Planted[][]) {
  const temp = await temps.open();
  for (const group of groups) await temp.store.putMemories(group.map((p) => p.memory));
  await temp.store.writeWorkingMemory(
    { userId: 'alice', resource: 'p1' },
    { content: 'qzvkxjwpqzbmyfhtlrgd', expectedVersion: 0, opId: 'o', at: 1 },
  );
  await temp.store.close();
  // Reopened: LevelDB writes what its log held into a table file, compressed.
  const store = await LevelSessionStore.open({ path: temp.path });
  temps.defer(() => store.close());
  return { store, path: temp.path };
}

describe('forgetMemories on LevelDB erases to the byte', () => {
  it('a whole user: none of their texts or vectors is left in any file; another user’s are', async () => {
    const alice = [...plant('alice', undefined, 20, 1), ...plant('alice', 'p1', 20, 2)];
    const bob = plant('bob', undefined, 20, 3);
    const { store, path } = await storeWith([alice, bob]);
    const before = await folderBytes(path);
    expect(found(before, alice)).toEqual(everything(alice));
    expect(before).toContain('qzvkxjwpqzbm');
    // Searched first: what a search cached goes too.
    const query = { userId: 'alice', model: 'embed', vector: alice[0]!.memory.vector, topK: 1 };
    expect((await store.searchMemories(query))[0]?.memory.id).toBe('own-0');

    expect(await store.forgetMemories({ userId: 'alice' })).toEqual({
      memories: 40,
      workingMemories: 1,
    });
    const after = await folderBytes(path);
    expect(found(after, alice)).toEqual([]);
    expect(after).not.toContain('qzvkxjwpqzbm');
    expect(found(after, bob)).toEqual(everything(bob));
    expect(await store.searchMemories(query)).toEqual([]);

    await store.close();
    const closed = await folderBytes(path);
    expect(found(closed, alice)).toEqual([]);
    expect(found(closed, bob)).toEqual(everything(bob));
    const reopened = await LevelSessionStore.open({ path });
    temps.defer(() => reopened.close());
    expect((await reopened.listMemories({ userId: 'bob', limit: 100 })).memories).toHaveLength(20);
    expect((await reopened.listMemories({ userId: 'alice' })).memories).toEqual([]);
  });

  it('one resource: its texts, vectors and working memory leave the files; the user’s others stay', async () => {
    const ownScope = plant('alice', undefined, 20, 4);
    const p1 = plant('alice', 'p1', 20, 5);
    const bob = plant('bob', 'p1', 20, 6);
    const { store, path } = await storeWith([ownScope, p1, bob]);
    expect(found(await folderBytes(path), p1)).toEqual(everything(p1));

    expect(await store.forgetMemories({ userId: 'alice', resource: 'p1' })).toEqual({
      memories: 20,
      workingMemories: 1,
    });
    await store.close();
    const after = await folderBytes(path);
    expect(found(after, p1)).toEqual([]);
    expect(after).not.toContain('qzvkxjwpqzbm');
    expect(found(after, ownScope)).toEqual(everything(ownScope));
    expect(found(after, bob)).toEqual(everything(bob));
  });
});
