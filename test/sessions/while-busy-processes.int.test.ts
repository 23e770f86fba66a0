import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore, type SessionStore, type WhileBusy } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { contentText } from '../../src/items/item.js';
import { until } from '../helpers/async.js';
import { JsonLineChild, type ChildEvent } from '../helpers/json-line-child.js';
import { usePostgres } from '../helpers/postgres-tests.js';

/**
 * Issue 31, "a message sent while a run is busy", across processes: two messages race while
 * another process runs the session (PostgreSQL, one test per policy), or the process that ran
 * the session is SIGKILLed with two messages queued (LevelDB) and a new process recovers it.
 * Each message accepted is answered exactly once: its model calls are counted in every process.
 */
const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const key = { sessionId: 'chat', userId: 'u1' };

/** A worker process (test/helpers/busy-worker.ts) and every event it printed. */
async function worker(args: string[], policy: WhileBusy): Promise<JsonLineChild> {
  const child = await JsonLineChild.start('test/helpers/busy-worker.ts', [...args, policy]);
  cleanups.push(() => child.stop());
  expect(await child.next('ready')).toMatchObject({ event: 'ready' });
  return child;
}

/** The texts of the model calls every worker made. */
const modelTexts = (...children: JsonLineChild[]): string[] =>
  children.flatMap((c) => c.events.filter((e) => e.event === 'model').map((e) => e.text as string));

/** The events of the given kind a worker printed about `text`. */
const outcome = (child: JsonLineChild, text: string): ChildEvent | undefined =>
  child.events.find((e) => (e.event === 'answered' || e.event === 'failed') && e.text === text);

const settled = (child: JsonLineChild, ...texts: string[]) =>
  until(
    () => texts.every((t) => outcome(child, t) !== undefined),
    `answers to ${texts.join(', ')}`,
  );

async function history(store: SessionStore): Promise<string[]> {
  return (await store.readHistory(key)).map((i) =>
    i.type === 'message' ? contentText(i.content) : i.type,
  );
}

describe('whileBusy across processes on PostgreSQL: B sends two messages while A runs', () => {
  async function twoProcesses(policy: WhileBusy, first = 'hold') {
    const schema = pgt.schema(`busy_${policy}`);
    const a = await worker(['pg', pgt.url, schema, 'proc-a'], policy);
    const b = await worker(['pg', pgt.url, schema, 'proc-b'], policy);
    const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
    cleanups.push(() => store.close());
    a.send('run', { text: first });
    const busy = first === 'hold' ? 'model' : 'tool';
    await until(() => a.events.some((e) => e.event === busy), `A's ${busy} call`);
    b.send('run', { text: 'two', whileBusy: policy });
    b.send('run', { text: 'three', whileBusy: policy });
    return { a, b, store };
  }

  it("'reject': both are refused with RUN_IN_PROGRESS and nothing of them is stored", async () => {
    const { a, b, store } = await twoProcesses('reject');
    await settled(b, 'two', 'three');
    expect([outcome(b, 'two')?.code, outcome(b, 'three')?.code]).toEqual([
      'RUN_IN_PROGRESS',
      'RUN_IN_PROGRESS',
    ]);
    a.send('release');
    await settled(a, 'hold');
    expect(outcome(a, 'hold')).toMatchObject({ event: 'answered', output: 'answer to hold' });
    expect(modelTexts(a, b)).toEqual(['hold']);
    expect(await store.queuedMessages(key)).toEqual([]);
    expect(await history(store)).toEqual(['hold', 'answer to hold']);
  });

  it("'queue': both are stored (MESSAGE_QUEUED in B) and A answers each once, in order", async () => {
    const { a, b, store } = await twoProcesses('queue');
    await settled(b, 'two', 'three');
    expect([outcome(b, 'two')?.code, outcome(b, 'three')?.code]).toEqual([
      'MESSAGE_QUEUED',
      'MESSAGE_QUEUED',
    ]);
    a.send('release');
    await until(async () => (await store.readHistory(key)).length === 6, 'six items');
    await until(async () => (await store.queuedMessages(key)).length === 0, 'inbox empty');
    const texts = await history(store);
    // B's messages raced: either order is theirs, each once and after A's run.
    expect(texts.slice(0, 2)).toEqual(['hold', 'answer to hold']);
    expect(texts.slice(2).sort()).toEqual(
      ['three', 'answer to three', 'two', 'answer to two'].sort(),
    );
    expect(modelTexts(a, b).sort()).toEqual(['hold', 'three', 'two']);
  });

  it("'steer': both join A's running run before its next model call, each once", async () => {
    const { a, b, store } = await twoProcesses('steer', 'hold-tool');
    await settled(b, 'two', 'three');
    expect([outcome(b, 'two')?.code, outcome(b, 'three')?.code]).toEqual([
      'MESSAGE_QUEUED',
      'MESSAGE_QUEUED',
    ]);
    expect((await store.queuedMessages(key)).map((m) => m.kind)).toEqual(['steer', 'steer']);
    a.send('release');
    await settled(a, 'hold-tool');
    const texts = await history(store);
    expect(texts.slice(0, 3)).toEqual(['hold-tool', 'tool_call', 'tool_result']);
    expect(texts.slice(3, 5).sort()).toEqual(['three', 'two']);
    expect(texts).toHaveLength(6);
    // One more model call took both: its last user message is the later one.
    expect(modelTexts(a, b)).toEqual(['hold-tool', texts[4]]);
    expect(outcome(a, 'hold-tool')).toMatchObject({ output: `answer to ${texts[4]}` });
    expect(await store.queuedMessages(key)).toEqual([]);
  });

  it("'interrupt': A's run is cancelled from B, and B's messages run there", async () => {
    const { a, b, store } = await twoProcesses('interrupt');
    await settled(a, 'hold');
    expect(outcome(a, 'hold')).toMatchObject({ event: 'failed', code: 'RUN_CANCELLED' });
    await settled(b, 'two', 'three');
    const answered = ['two', 'three'].filter((t) => outcome(b, t)?.event === 'answered');
    const cancelled = ['two', 'three'].filter((t) => outcome(b, t)?.code === 'RUN_CANCELLED');
    // Each is answered, or cancelled by the other one (the later one is always answered).
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length + cancelled.length).toBe(2);
    const texts = await history(store);
    for (const text of answered) {
      expect(texts.filter((t) => t === `answer to ${text}`)).toHaveLength(1);
      expect(modelTexts(a, b).filter((t) => t === text)).toHaveLength(1);
    }
    expect(texts).not.toContain('answer to hold');
  });
});

describe("whileBusy: 'queue' and 'steer' across a crash (LevelDB)", () => {
  it('two messages queued, the process SIGKILLed: a new process recovers and answers each once', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'agentstate-queue-crash-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'db');
    const a = await worker(['level', path, '-', 'proc-a'], 'queue');
    a.send('run', { text: 'hold' });
    await until(() => a.events.some((e) => e.event === 'model'), "A's model call");
    a.send('run', { text: 'two' });
    a.send('run', { text: 'three' });
    await until(async () => {
      a.send('inbox');
      return (await a.next('inbox')).count === 2;
    }, 'both messages stored');
    await a.stop(); // SIGKILL: the run and both callers are gone
    expect(a.events.filter((e) => e.event === 'answered' || e.event === 'failed')).toEqual([]);

    const c = await worker(['level', path, '-', 'proc-c'], 'reject');
    c.send('release');
    c.send('recover');
    expect(await c.next('recovered', 'failed')).toEqual({ event: 'recovered', count: 1 });
    await c.stop();
    expect(modelTexts(a)).toEqual(['hold']);
    expect(modelTexts(c)).toEqual(['hold', 'two', 'three']);
    const store = await LevelSessionStore.open({ path });
    try {
      expect(await history(store)).toEqual([
        'hold',
        'answer to hold',
        'two',
        'answer to two',
        'three',
        'answer to three',
      ]);
      expect(await store.queuedMessages(key)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a steer taken and saved, the process SIGKILLed in the next model call: it stays in the history once', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'agentstate-steer-crash-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'db');
    const a = await worker(['level', path, '-', 'proc-a'], 'steer');
    a.send('run', { text: 'hold-tool' });
    await until(() => a.events.some((e) => e.event === 'tool'), "A's tool call");
    a.send('run', { text: 'stall' });
    await until(async () => {
      a.send('inbox');
      return (await a.next('inbox')).count === 1;
    }, 'the steer stored');
    a.send('release'); // the tool returns; the next model call takes the steer, then stalls
    await until(() => modelTexts(a).includes('stall'), 'the model call with the steer');
    await a.stop(); // SIGKILL in that model call: the steer was saved with the step before it
    expect(modelTexts(a)).toEqual(['hold-tool', 'stall']);

    const c = await worker(['level', path, '-', 'proc-c'], 'reject');
    c.send('unstall');
    c.send('recover');
    expect(await c.next('recovered', 'failed')).toEqual({ event: 'recovered', count: 1 });
    await c.stop();
    const store = await LevelSessionStore.open({ path });
    try {
      expect(await history(store)).toEqual([
        'hold-tool',
        'tool_call',
        'tool_result',
        'stall',
        'answer to stall',
      ]);
      expect(await store.queuedMessages(key)).toEqual([]);
      // Only the call in flight at the crash runs again; the steer is not taken a second time.
      expect(modelTexts(c)).toEqual(['stall']);
    } finally {
      await store.close();
    }
  });
});

describe('whileBusy: a message no run took (its process died after the run ended)', () => {
  /** A runs `one` to its end, then a message is stored with no drain after, then SIGKILL. */
  async function stranded(args: string[]): Promise<JsonLineChild> {
    const a = await worker(args, 'queue');
    a.send('run', { text: 'one' });
    await settled(a, 'one');
    a.send('strand', { text: 'two' });
    await a.next('stranded');
    await a.stop(); // SIGKILL
    return a;
  }

  it('LevelDB: recover() in a new process answers it once', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'agentstate-stranded-'));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const path = join(folder, 'db');
    const a = await stranded(['level', path, '-', 'proc-a']);
    const c = await worker(['level', path, '-', 'proc-c'], 'reject');
    c.send('recover');
    expect(await c.next('recovered', 'failed')).toEqual({ event: 'recovered', count: 0 });
    c.send('recover'); // nothing left: a second recovery answers nothing
    expect(await c.next('recovered', 'failed')).toEqual({ event: 'recovered', count: 0 });
    await c.stop();
    expect(modelTexts(a, c)).toEqual(['one', 'two']);
    const store = await LevelSessionStore.open({ path });
    try {
      expect(await history(store)).toEqual(['one', 'answer to one', 'two', 'answer to two']);
      expect(await store.queuedMessages(key)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('PostgreSQL: two processes recovering at once answer it once', async () => {
    const schema = pgt.schema('busy_stranded');
    const a = await stranded(['pg', pgt.url, schema, 'proc-a']);
    const b = await worker(['pg', pgt.url, schema, 'proc-b'], 'reject');
    const c = await worker(['pg', pgt.url, schema, 'proc-c'], 'reject');
    b.send('recover');
    c.send('recover');
    expect(await b.next('recovered', 'failed')).toEqual({ event: 'recovered', count: 0 });
    expect(await c.next('recovered', 'failed')).toEqual({ event: 'recovered', count: 0 });
    const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
    cleanups.push(() => store.close());
    expect(await history(store)).toEqual(['one', 'answer to one', 'two', 'answer to two']);
    expect(await store.queuedMessages(key)).toEqual([]);
    expect(modelTexts(a, b, c)).toEqual(['one', 'two']);
  });
});

describe("a queued message's messageId across processes on PostgreSQL", () => {
  it('kept in the inbox: the same id while it waits is not queued again (in either process), A runs it once under its id, after that MESSAGE_ANSWERED', async () => {
    const schema = pgt.schema('busy_message_id');
    const a = await worker(['pg', pgt.url, schema, 'proc-a'], 'queue');
    const b = await worker(['pg', pgt.url, schema, 'proc-b'], 'queue');
    const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema });
    cleanups.push(() => store.close());
    a.send('run', { text: 'hold' });
    await until(() => a.events.some((e) => e.event === 'model'), "A's model call");
    b.send('run', { text: 'two', messageId: 'q1' });
    await settled(b, 'two');
    expect(outcome(b, 'two')).toMatchObject({ code: 'MESSAGE_QUEUED', again: false });
    const [waiting] = await store.queuedMessages(key);
    expect(waiting?.options).toMatchObject({ messageId: 'q1' });
    // The same id again, from B and from A (which runs the session): named, not stored again.
    b.send('run', { text: 'two again', messageId: 'q1' });
    a.send('run', { text: 'two again', messageId: 'q1' });
    await settled(b, 'two again');
    await settled(a, 'two again');
    for (const child of [a, b]) {
      expect(outcome(child, 'two again')).toMatchObject({
        code: 'MESSAGE_QUEUED',
        again: true,
        messageId: waiting!.id,
      });
    }
    expect(await store.queuedMessages(key)).toHaveLength(1);
    a.send('release');
    await settled(a, 'hold');
    await until(async () => (await store.readHistory(key)).length === 4, 'four items');
    await until(async () => (await store.queuedMessages(key)).length === 0, 'inbox empty');
    expect(await history(store)).toEqual(['hold', 'answer to hold', 'two', 'answer to two']);
    // Taken by A from the store (its caller was B): recorded as answered under its id.
    b.send('run', { text: 'two later', messageId: 'q1' });
    await settled(b, 'two later');
    expect(outcome(b, 'two later')).toMatchObject({ code: 'MESSAGE_ANSWERED' });
    expect(modelTexts(a, b)).toEqual(['hold', 'two']);
  });
});
