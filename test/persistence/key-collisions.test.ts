import { afterEach, describe, expect, it } from 'vitest';
import { Agent, sendMessage, type SessionKey } from '../../src/index.js';
import { FakeClock } from '../../src/testing.js';
import { cacheKey } from '../../src/session-host/session-cache.js';
import {
  encodedKey,
  historyKey,
  journalKey,
  listIndexKey,
  recordKey,
  userTotalsKey,
} from '../../src/persistence/session-keys.js';
import { echoModel, texts } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Ids are arbitrary strings: no two (user, session) pairs may share a store key or a cache
 * entry, whatever separators, NUL or non-ASCII characters they hold (issue 8, points 6, 9).
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const USERS = [
  undefined,
  '',
  'x',
  'x\u0000y',
  'a',
  'a!b',
  'a%21b',
  'a\u0000b',
  'u:a',
  'é',
  'e\u0301',
  '🙂',
  'a/b',
];
const SESSIONS = ['z', 'y\u0000z', 'b', 'b!c', '!', 'c\u0000', '\u0000', 'ß', 'a!b!c', '%', '🙂!'];

const pairs: SessionKey[] = USERS.flatMap((userId) =>
  SESSIONS.map((sessionId) => ({ sessionId, userId })),
);

describe('unambiguous keys', () => {
  it('every (user, session) pair has its own keys and cache entry', () => {
    for (const keyOf of [
      recordKey,
      listIndexKey,
      cacheKey,
      (k: SessionKey) => historyKey(k, 0),
      (k: SessionKey) => journalKey(k, 'run!1', 0),
    ]) {
      const keys = pairs.map(keyOf);
      expect(new Set(keys).size).toBe(pairs.length);
    }
    expect(new Set(USERS.map(userTotalsKey)).size).toBe(USERS.length);
    // Keys are ASCII: JavaScript string order is LevelDB's byte order.
    expect(pairs.map(recordKey).every((k) => /^[\x20-\x7e]+$/.test(k))).toBe(true);
  });

  it('a lone surrogate in an id is refused with a TypeError, not stored under a lossy key', () => {
    expect(() => recordKey({ sessionId: 'x\ud800' })).toThrow(TypeError);
    expect(() => recordKey({ sessionId: 'x', userId: '\udc00' })).toThrow(TypeError);
    expect(() => encodedKey({ sessionId: 'x\ud800' })).toThrow(TypeError);
    expect(() => encodedKey({ sessionId: '' })).toThrow(TypeError);
  });

  it('a key encoded once names the same keys as the plain one', () => {
    for (const key of pairs) {
      const encoded = encodedKey(key);
      expect(encoded).toEqual({ sessionId: key.sessionId, userId: key.userId });
      for (const keyOf of [recordKey, listIndexKey, (k: SessionKey) => historyKey(k, 3)]) {
        expect(keyOf(encoded)).toBe(keyOf(key));
      }
      expect(journalKey(encoded, 'run!1', 2)).toBe(journalKey(key, 'run!1', 2));
    }
    // A caller's key with look-alike fields is encoded from its ids, as always.
    const forged = { sessionId: 'b', userId: 'a', part: 'u:x!y', sessionPart: 'u:x!y' };
    expect(recordKey(forged)).toBe(recordKey({ sessionId: 'b', userId: 'a' }));
  });

  it('conversations under look-alike ids never see each other, also through the cache', async () => {
    const { store } = await temps.open();
    // A clock that never moves: sessions created at the same instant, as in a busy process.
    const model = echoModel();
    const agent = new Agent({ name: 'a', model, store, clock: new FakeClock(1_000) });
    const runtime = agent.runtimeFor(store);
    // Under the old cache key `u:<user>\0<session>` these two pairs shared an entry.
    const one = { userId: 'x\u0000y', sessionId: 'z' };
    const two = { userId: 'x', sessionId: 'y\u0000z' };
    for (const text of ['two-1', 'two-2', 'two-3']) await runtime.execute(two, sendMessage(text));
    await runtime.execute(one, sendMessage('one-1'));
    await runtime.execute(two, sendMessage('two-4'));
    const last = model.calls.at(-1)!;
    expect(texts(last.items).filter((t) => !t.startsWith('reply'))).toEqual([
      'two-1',
      'two-2',
      'two-3',
      'two-4',
    ]);
    expect(texts(await store.readHistory(one))).toEqual(['one-1', 'reply: one-1']);
  });

  it('sessions of every tricky pair are stored, listed and read back apart', async () => {
    const { store } = await temps.open();
    const agent = new Agent({ name: 'a', model: echoModel(), store, clock: new FakeClock(1_000) });
    const runtime = agent.runtimeFor(store);
    for (const key of pairs) {
      await runtime.execute(key, sendMessage(`${key.userId ?? '-'}|${key.sessionId}`));
    }
    for (const key of pairs) {
      const history = texts(await store.readHistory(key));
      expect(history[0]).toBe(`${key.userId ?? '-'}|${key.sessionId}`);
    }
    for (const userId of USERS) {
      const page = await store.list({ userId, limit: 100 });
      expect(page.sessions.map((s) => s.sessionId).sort()).toEqual([...SESSIONS].sort());
    }
  });
});
