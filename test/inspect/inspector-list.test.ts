import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { MAX_SCANNED } from '../../src/inspect/session-listing.js';
import { newSessionRecord } from '../../src/runs/new-session-record.js';
import { MemorySessionStore } from '../../src/testing.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import {
  failingAgent,
  pausingAgent,
  writePausedAndFailed,
} from '../helpers/run-status-fixtures.js';

const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
});

type Listed = {
  sessions: {
    sessionId: string;
    agent?: string;
    pendingApprovals: number;
    runStatus?: { status: string; error?: { code: string; message: string } };
  }[];
  nextCursor?: string;
  scanned: number;
  partial: boolean;
};

/** alice's `paused` (agent `a`, waits for a decision), `failed` (agent `w`) and `ok-*` sessions. */
async function aliceInspector(extra = 0) {
  const store = new MemorySessionStore();
  const agent = await writePausedAndFailed(store);
  for (let i = 0; i < extra; i++) {
    await store.create(newSessionRecord({ sessionId: `ok-${i}`, userId: 'alice' }, 1000 + i));
  }
  const inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: 'alice' });
  open.push(inspector);
  const client = inspectorClient(inspector);
  const list = async (query: string) => {
    const answer = await client.get(`/api/sessions${query}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.json as Listed;
  };
  return { store, client, list };
}

const ids = (l: Listed) => l.sessions.map((s) => s.sessionId);

describe('inspector list: filters, order and paging on the server', () => {
  it('filters by run status (failed with its reason, waiting), agent and text, waiting sessions first', async () => {
    const { list } = await aliceInspector(3);
    const failed = await list('?run=failed');
    expect(ids(failed)).toEqual(['failed']);
    expect(failed.sessions[0]!.runStatus!.error).toMatchObject({ code: 'OUTPUT_VALIDATION' });
    expect(ids(await list('?run=waiting'))).toEqual(['paused']);
    expect(ids(await list('?run=none'))).toEqual(['ok-0', 'ok-1', 'ok-2']);
    expect(ids(await list('?agent=w'))).toEqual(['failed']);
    expect(ids(await list('?text=output_valid'))).toEqual(['failed']);
    expect(ids(await list('?text=ok-1'))).toEqual(['ok-1']);
    // by id the waiting session comes first all the same; by creation, newest next
    expect(ids(await list(''))).toEqual(['paused', 'failed', 'ok-0', 'ok-1', 'ok-2']);
    expect(ids(await list('?sort=created'))).toEqual(['paused', 'failed', 'ok-2', 'ok-1', 'ok-0']);
  });

  it('answers a bad query with a typed 400 and the list unchanged', async () => {
    const { client, store, list } = await aliceInspector();
    const before = await list('');
    for (const query of [
      '?run=finished',
      '?status=finished',
      '?sort=random',
      '?limit=0',
      '?limit=501',
      '?limit=2.5',
      '?limit=ten',
      '?colour=red',
      '?run=failed&run=waiting',
      `?text=${'x'.repeat(201)}`,
    ]) {
      const answer = await client.get(`/api/sessions${query}`);
      expect([query, answer.status]).toEqual([query, 400]);
      expect((answer.json as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
    }
    expect(await list('')).toEqual(before);
    expect((await store.list({ userId: 'alice' })).sessions).toHaveLength(2);
  });

  it('pages 10,000 sessions with a cursor, reading only the page it serves (and a bounded scan under a filter)', async () => {
    const store = new MemorySessionStore();
    const agent = failingAgent(store, 'later');
    const pad = (i: number) => `s-${String(i).padStart(5, '0')}`;
    for (let i = 0; i < 10_000; i++) {
      await store.create(newSessionRecord({ sessionId: pad(i), userId: 'alice' }, i));
    }
    const inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: 'alice' });
    open.push(inspector);
    const client = inspectorClient(inspector);
    const get = async (query: string) => (await client.get(`/api/sessions${query}`)).json as Listed;

    const first = await get('?limit=50');
    expect(ids(first)).toEqual(Array.from({ length: 50 }, (_, i) => pad(i)));
    // it read the 50 sessions it serves, not the partition
    expect(first.scanned).toBe(50);
    expect(first.nextCursor).toBe(`1!${pad(49)}`);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await get(`?limit=500${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.scanned).toBeLessThanOrEqual(500);
      seen.push(...ids(page));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 30);
    expect(seen).toHaveLength(10_000);
    expect(new Set(seen).size).toBe(10_000);
    expect(seen).toEqual([...seen].sort());

    // a filter nothing matches reads at most MAX_SCANNED sessions, then says where to go on
    const none = await get('?run=failed');
    expect(none).toMatchObject({ sessions: [], scanned: MAX_SCANNED, partial: true });
    expect(none.nextCursor).toBe(`1!${pad(MAX_SCANNED - 1)}`);
    // a failed run at the end is found by following the cursor
    await agent.run('weather?', { sessionId: 's-99999', userId: 'alice' }).catch(() => undefined);
    const found: string[] = [];
    cursor = undefined;
    pages = 0;
    do {
      const page = await get(`?run=failed${cursor ? `&cursor=${cursor}` : ''}`);
      found.push(...ids(page));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(found).toEqual(['s-99999']);
    expect(pages).toBe(Math.ceil(10_001 / MAX_SCANNED));
  }, 120_000);

  it('puts the session waiting for a decision first across pages: 300 others, every sort', async () => {
    const store = new MemorySessionStore();
    // Created first, so it is the oldest, and its id sorts after every other one.
    const agent = pausingAgent(store);
    await agent.run('go', { sessionId: 'zz-waits', userId: 'alice' });
    const later = Date.now() + 60_000;
    for (let i = 0; i < 300; i++) {
      const key = { sessionId: `s-${String(i).padStart(3, '0')}`, userId: 'alice' };
      await store.create(
        newSessionRecord(key, later + i, {
          usage: { turns: 1, inputTokens: 1_000 + i, outputTokens: 0, costUsd: 0 },
        }),
      );
    }
    const inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: 'alice' });
    open.push(inspector);
    const client = inspectorClient(inspector);
    const get = async (query: string) => {
      const answer = await client.get(`/api/sessions${query}`);
      expect(answer.status, answer.text).toBe(200);
      return answer.json as Listed;
    };
    const others = Array.from({ length: 300 }, (_, i) => `s-${String(i).padStart(3, '0')}`);
    const newestFirst = [...others].reverse();
    const want = { id: others, created: newestFirst, updated: newestFirst, usage: newestFirst };
    for (const [sort, rest] of Object.entries(want)) {
      const first = await get(`?sort=${sort}`);
      expect(first.sessions[0]).toMatchObject({ sessionId: 'zz-waits', pendingApprovals: 1 });
      expect(first.sessions).toHaveLength(50);
      // Read only the page it serves, and every page after it goes on in the same order.
      expect(first.scanned).toBe(50);
      const seen = ids(first);
      let cursor = first.nextCursor;
      for (let pages = 0; cursor !== undefined && pages < 20; pages++) {
        const page = await get(`?sort=${sort}&limit=40&cursor=${encodeURIComponent(cursor)}`);
        seen.push(...ids(page));
        cursor = page.nextCursor;
      }
      expect([sort, seen]).toEqual([sort, ['zz-waits', ...rest]]);
    }
    // A cursor of another sort is a 400, not a page from a wrong place.
    const byId = await get('?limit=5');
    const wrong = await client.get(`/api/sessions?sort=updated&cursor=${byId.nextCursor!}`);
    expect(wrong.status).toBe(400);
  }, 120_000);

  it('pages a session history back from a position, and answers a bad query with a typed 400', async () => {
    const { store, client } = await aliceInspector();
    const total = 120;
    const items = Array.from({ length: total }, (_, i) => ({
      type: 'message' as const,
      role: 'user' as const,
      content: `m${i}`,
    }));
    const key = { sessionId: 'long', userId: 'alice' };
    await store.create({ ...newSessionRecord(key, 1_000), historyLength: total }, items);
    type Page = { total: number; from: number; items: { content: string }[] };
    const seen: string[] = [];
    let before: number | undefined;
    for (let pages = 0; before !== 0 && pages < 10; pages++) {
      const answer = await client.get(
        `/api/sessions/long/history?limit=50${before === undefined ? '' : `&before=${before}`}`,
      );
      expect(answer.status, answer.text).toBe(200);
      const page = answer.json as Page;
      expect(page.total).toBe(total);
      seen.unshift(...page.items.map((i) => i.content));
      before = page.from;
    }
    expect(seen).toEqual(items.map((i) => i.content));
    for (const query of ['?before=-1', '?limit=0', '?limit=201', '?before=x', '?colour=red']) {
      const answer = await client.get(`/api/sessions/long/history${query}`);
      expect([query, answer.status]).toEqual([query, 400]);
    }
    // another user's session (or none) is not found
    expect((await client.get('/api/sessions/nobody/history')).status).toBe(404);
  });
});
