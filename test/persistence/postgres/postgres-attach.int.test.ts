import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, StoreUnavailableError, tool, type AttachEvent } from '../../../src/index.js';
import { createChatHandler } from '../../../src/http.js';
import { PostgresSessionStore } from '../../../src/postgres.js';
import { FakeClock, ScriptedModel } from '../../../src/testing.js';
import { ATTACH_POLL_MS } from '../../../src/runs/stored-run-follow.js';
import { until } from '../../helpers/async.js';
import { GatedModel } from '../../helpers/gated-model.js';
import { JsonLineChild } from '../../helpers/json-line-child.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

/** The events of the scripted run (two `add` calls, then the answer) a reader gets, in order. */
const TWO_TOOL_CALLS_RUN = [
  'step_started',
  'tool_call',
  'tool_result',
  'step_started',
  'tool_call',
  'tool_result',
  'step_started',
  'text',
  'run_ended',
];

/**
 * Issue 31, "Attach" across processes: process A (test/helpers/pg-worker.ts, its model gated
 * so the test decides when each call answers) runs a session; this process attaches to it and
 * follows it through the store's notifications (its clock stands still: it never polls); A is
 * SIGKILLed mid-run and process C recovers the run; the reader goes on with C's steps.
 */
const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const key = { sessionId: 'shared', userId: 'u1' };

/** A worker whose model calls `add` twice, then answers, each call waiting for `step`. */
async function start(schema: string, owner: string, offsetMs = 0): Promise<JsonLineChild> {
  const args = [pgt.url, schema, owner, String(offsetMs)];
  const child = await JsonLineChild.start('test/helpers/pg-worker.ts', args, {
    GATED: '1',
    TOOLS: '1',
  });
  cleanups.push(() => child.stop());
  expect(await child.next('ready', 'exited')).toEqual({ event: 'ready' });
  return child;
}

/** The reader in this process: the agent on the shared store, its clock standing still. */
async function reader(schema: string): Promise<Agent> {
  const clock = new FakeClock();
  const store = await PostgresSessionStore.open({ connectionString: pgt.url, schema, clock });
  cleanups.push(() => store.close());
  return new Agent({ name: 'worker', model: new ScriptedModel([]), store, clock });
}

/** Reads `events` into `into` until `until` holds for one (or they end). */
async function readUntil(
  events: AsyncIterator<AttachEvent>,
  into: AttachEvent[],
  until: (event: AttachEvent) => boolean = () => false,
): Promise<void> {
  for (let next = await events.next(); !next.done; next = await events.next()) {
    into.push(next.value);
    if (until(next.value)) return;
  }
}

/** A store where LISTEN cannot be had (as behind a transaction-mode pooler). */
class DeafStore extends PostgresSessionStore {
  override readonly watchSession = () =>
    Promise.reject(new StoreUnavailableError('listen for notifications', new Error('no LISTEN')));
}

async function all(events: AsyncIterable<AttachEvent>): Promise<AttachEvent[]> {
  const out: AttachEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Ids increase strictly (step, then place in it) and never repeat. */
function expectIncreasing(events: readonly AttachEvent[]): void {
  const places = events.map((e) => {
    const [step, n] = e.id.slice(e.runId.length + 1).split(':');
    return [Number(step), n === 'end' ? Infinity : Number(n)] as const;
  });
  for (let i = 1; i < places.length; i++) {
    const [a, b] = [places[i - 1]!, places[i]!];
    expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])).toBe(true);
  }
}

describe('agent.attach of a run another process executes (PostgreSQL)', () => {
  it("B attaches mid-run to A's run, gets each later step once as it is journaled; A is killed, C recovers, B goes on with C's steps to the end", async () => {
    const schema = pgt.schema('attach');
    const a = await start(schema, 'proc-a');
    a.send('run', { text: 'add' });
    expect(await a.next('model-called')).toMatchObject({ results: 0 });
    a.send('step'); // add_1 called and answered; the second model call waits
    expect(await a.next('model-called')).toMatchObject({ results: 1 });

    const b = await reader(schema);
    const events = b.attach(key.sessionId, { userId: key.userId })[Symbol.asyncIterator]();
    const got: AttachEvent[] = [];
    await readUntil(events, got, (e) => e.type === 'tool_result');
    expect(got.map((e) => e.type)).toEqual(['step_started', 'tool_call', 'tool_result']);

    // Nothing is read before A's next save: then the step, as journaled.
    const later = readUntil(events, got, (e) => e.type === 'tool_result' && e.callId === 'add_2');
    a.send('step');
    await later;
    expect(await a.next('model-called')).toMatchObject({ results: 2 });

    // A dies while its third model call waits; C, a minute later by its clock (A's lease has
    // expired for it, not for B), recovers the run: the call runs again in C.
    await a.stop();
    const c = await start(schema, 'proc-c', 60_000);
    c.send('recover');
    expect(await c.next('model-called')).toMatchObject({ results: 2 });
    const rest = readUntil(events, got);
    c.send('step');
    expect(await c.next('recovered')).toMatchObject({
      results: [{ sessionId: 'shared', output: 'Done: 10' }],
    });
    await rest;

    expect(got.map((e) => e.type)).toEqual(TWO_TOOL_CALLS_RUN);
    // A remote reader gets a step's text whole, once journaled.
    expect(got.filter((e) => e.type === 'text')).toEqual([
      expect.objectContaining({ text: 'Done: 10' }),
    ]);
    expect(got.at(-1)).toMatchObject({ type: 'run_ended', status: 'completed' });
    expectIncreasing(got);
    // Exactly what the journal holds: no gap, no duplicate; the ids a later reader sees.
    expect(await all(b.attach(key.sessionId, { userId: key.userId }))).toEqual(got);
  });

  it("GET /chat/:id/stream on another process's run follows it to its end", async () => {
    const schema = pgt.schema('attachhttp');
    const a = await start(schema, 'proc-a');
    a.send('run', { text: 'add' });
    await a.next('model-called');
    a.send('step');
    await a.next('model-called');

    const agent = await reader(schema);
    const handler = createChatHandler({ agent, userId: () => key.userId });
    const res = await handler(new Request(`http://app/chat/${key.sessionId}/stream`));
    expect(res.status).toBe(200);
    const body = res.text();
    a.send('step');
    await a.next('model-called');
    a.send('step');
    expect(await a.next('run-done', 'run-failed')).toMatchObject({ output: 'Done: 10' });
    const text = await body;
    expect(text).toContain('"output":"5"');
    expect(text).toContain('"output":"10"');
    expect(text).toContain('"delta":"Done: 10"');
    expect(text).not.toContain('"type":"error"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it("without notifications, the reader polls on its runtime's clock", async () => {
    const schema = pgt.schema('attachpoll');
    const options = { connectionString: pgt.url, schema };
    const [runnerStore, deaf] = [await PostgresSessionStore.open(options), new DeafStore(options)];
    cleanups.push(
      () => runnerStore.close(),
      () => deaf.close(),
    );
    const model = new GatedModel();
    const add = tool({
      name: 'add',
      description: 'Adds two numbers',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    });
    const runner = new Agent({ name: 'calc', model, tools: [add], store: runnerStore });
    const stream = runner.stream('add', key);
    const drained = (async () => {
      for await (const _ of stream);
    })();
    await model.reached.promise;
    const clock = new FakeClock();
    const reader = new Agent({ name: 'calc', model: new ScriptedModel([]), store: deaf, clock });
    const events = reader.attach(key.sessionId, { userId: key.userId })[Symbol.asyncIterator]();
    const got: AttachEvent[] = [];
    await readUntil(events, got, (e) => e.type === 'tool_result');
    const rest = readUntil(events, got);
    model.open();
    await Promise.all([stream.result, drained]);
    await until(() => clock.pendingSleepers > 0, 'the reader to wait for its poll');
    expect(got.map((e) => e.type)).toEqual(['step_started', 'tool_call', 'tool_result']);
    clock.advance(ATTACH_POLL_MS);
    await rest;
    expect(got.map((e) => e.type).slice(3)).toEqual(['step_started', 'text', 'run_ended']);
    expect(got.at(-1)).toMatchObject({ status: 'completed' });
    expect(got.find((e) => e.type === 'text')).toMatchObject({ text: 'The sum is 5 today.' });
  });

  it('a reader whose LISTEN connection is cut listens again at once, and misses nothing', async () => {
    const schema = pgt.schema('attachlost');
    const a = await start(schema, 'proc-a');
    a.send('run', { text: 'add' });
    await a.next('model-called');
    a.send('step');
    await a.next('model-called');
    // The backends LISTENing on the saves channel: the runner's one connection (its store's,
    // which its cancel watch holds while it runs), then the reader's.
    const listeners = async () =>
      (
        await pgt.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'LISTEN %\\_saves"'`,
        )
      ).rows.map((r) => r.pid);
    await until(async () => (await listeners()).length === 1, 'the runner to listen');
    const runner = await listeners();
    const listening = async () => (await listeners()).filter((pid) => !runner.includes(pid));
    const b = await reader(schema);
    const events = b.attach(key.sessionId, { userId: key.userId })[Symbol.asyncIterator]();
    const got: AttachEvent[] = [];
    await readUntil(events, got, (e) => e.type === 'tool_result');
    const rest = readUntil(events, got);
    await until(async () => (await listening()).length === 1, 'the reader to listen');
    const [cut] = await listening();
    await pgt.pool.query('SELECT pg_terminate_backend($1)', [cut]);
    await until(async () => {
      const now = await listening();
      return now.length === 1 && now[0] !== cut;
    }, 'the reader to listen again');
    a.send('step');
    await a.next('model-called');
    a.send('step');
    expect(await a.next('run-done', 'run-failed')).toMatchObject({ output: 'Done: 10' });
    await rest; // its clock never moved: it heard every step
    expect(got.map((e) => e.type)).toEqual(TWO_TOOL_CALLS_RUN);
    expect(await all(b.attach(key.sessionId, { userId: key.userId }))).toEqual(got);
  });
});
