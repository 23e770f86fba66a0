import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  SessionNotFoundError,
  tool,
  type AttachEvent,
  type SessionKey,
} from '../../src/index.js';
import type { JournalEntry } from '../../src/store.js';
import { FakeClock, MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { GatedModel } from '../helpers/gated-model.js';
import { deferred } from '../helpers/session-fixtures.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

let temp: TempStore;
let model: GatedModel;
let agent: Agent;
const alice = { userId: 'alice' };

beforeEach(async () => {
  temp = await openTempStore();
  model = new GatedModel();
  const add = tool({
    name: 'add',
    description: 'Adds two numbers',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => String(a + b),
  });
  agent = new Agent({ name: 'calc', model, tools: [add], store: temp.store });
});
afterEach(async () => {
  await temp.cleanup();
});

/** Every event of an attach. */
async function all(events: AsyncIterable<AttachEvent>): Promise<AttachEvent[]> {
  const out: AttachEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** What a reader makes of events: each step's text joined, the other events as they are. */
function transcript(events: readonly AttachEvent[]): unknown[] {
  const out: unknown[] = [];
  for (const e of events) {
    const { id: _id, ...body } = e;
    const last = out[out.length - 1] as { type: string; text: string; step: number } | undefined;
    if (e.type === 'text' && last?.type === 'text' && last.step === e.step) last.text += e.text;
    else out.push({ ...body });
  }
  return out;
}

/** Ids increase and never repeat. */
function expectIncreasing(events: readonly AttachEvent[]): void {
  const keys = events.map((e) => {
    const [step, n] = e.id.slice(e.runId.length + 1).split(':');
    return [Number(step), n === 'end' ? Infinity : Number(n)] as const;
  });
  for (let i = 1; i < keys.length; i++) {
    const [a, b] = [keys[i - 1]!, keys[i]!];
    expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])).toBe(true);
  }
}

/**
 * A run as a chat server starts it, streamed (a run nobody streams calls its model without
 * streaming, so an attacher gets its text whole once journaled): its result, the stream drained.
 */
function streamed(message: string, options: { sessionId: string; userId: string }) {
  const stream = agent.stream(message, options);
  void (async () => {
    for await (const _ of stream);
  })();
  return stream.result;
}

describe('agent.attach', () => {
  it('attached mid-run, gets the journaled steps, then every later event once, text as deltas', async () => {
    const run = streamed('add', { sessionId: 's1', ...alice });
    await model.reached.promise;
    const reader = agent.attach('s1', alice)[Symbol.asyncIterator]();
    const first = await reader.next();
    model.open();
    const events = [first.value as AttachEvent];
    for (let next = await reader.next(); !next.done; next = await reader.next()) {
      events.push(next.value);
    }
    const result = await run;
    expect(result.output).toBe('The sum is 5 today.');
    expect(events.map((e) => e.type)).toEqual([
      'step_started',
      'tool_call',
      'tool_result',
      'step_started',
      'text',
      'text',
      'text',
      'text',
      'text',
      'run_ended',
    ]);
    expect(events.filter((e) => e.type === 'text').map((e) => e.text)).toEqual([
      'The ',
      'sum ',
      'is ',
      '5 ',
      'today.',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run_ended', status: 'completed' });
    expectIncreasing(events);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('attached after the run ended, replays the whole run with each step text whole', async () => {
    model.open();
    const live: AttachEvent[] = [];
    const run = streamed('add', { sessionId: 's2', ...alice });
    await model.reached.promise;
    const following = all(agent.attach('s2', alice)).then((e) => live.push(...e));
    await run;
    await following;
    const replay = await all(agent.attach('s2', alice));
    expect(replay.filter((e) => e.type === 'text')).toEqual([
      expect.objectContaining({ text: 'The sum is 5 today.' }),
    ]);
    expect(transcript(replay)).toEqual(transcript(live));
    // The whole text's id is the live stream's last delta id: a cursor means the same in both.
    expect(replay.map((e) => e.id)).toEqual(
      live.filter((e, i) => e.type !== 'text' || live[i + 1]?.type !== 'text').map((e) => e.id),
    );
    expectIncreasing(replay);
  });

  it('resumes after any event id, live or replayed, with no loss and no duplicate', async () => {
    const run = streamed('add', { sessionId: 's3', ...alice });
    await model.reached.promise;
    // A reader that leaves in the middle of the text (after the first word).
    const reader = agent.attach('s3', alice)[Symbol.asyncIterator]();
    const seen: AttachEvent[] = [];
    model.gate.resolve();
    while (seen.at(-1)?.type !== 'text') seen.push((await reader.next()).value as AttachEvent);
    await reader.return!();
    expect(seen.at(-1)).toMatchObject({ type: 'text', text: 'The ' });
    // It comes back while the run goes on: the rest of the text, live.
    const back = agent.attach('s3', { ...alice, after: seen.at(-1)!.id })[Symbol.asyncIterator]();
    const next = back.next();
    model.midText.resolve();
    const resumed = [(await next).value as AttachEvent];
    expect(resumed[0]).toMatchObject({ type: 'text', text: 'sum ' });
    model.answered.resolve();
    for (let n = await back.next(); !n.done; n = await back.next()) resumed.push(n.value);
    await run;
    expect(resumed.map((e) => e.type)).toEqual(['text', 'text', 'text', 'text', 'run_ended']);
    const whole = await all(agent.attach('s3', alice));
    expect(transcript([...seen, ...resumed])).toEqual(transcript(whole));
    // After the run: from every id of the replay, the rest of it exactly.
    for (const [i, event] of whole.entries()) {
      const after = await all(agent.attach('s3', { ...alice, after: event.id }));
      expect(after).toEqual(whole.slice(i + 1));
    }
    // From a live id inside the text: the text's rest, whole.
    const inText = await all(agent.attach('s3', { ...alice, after: seen.at(-1)!.id }));
    expect(inText[0]).toMatchObject({ type: 'text', text: 'sum is 5 today.' });
  });

  it("a run another agent of this process executes is followed through the store's saves, each step's text whole", async () => {
    // Its clock stands still: the reader never polls, it hears each save of the store.
    const store = temp.store;
    const reader = new Agent({
      name: 'calc',
      model: new GatedModel(),
      store,
      clock: new FakeClock(),
    });
    const run = streamed('add', { sessionId: 'w1', ...alice });
    await model.reached.promise;
    const following = all(reader.attach('w1', alice));
    model.open();
    const [events] = await Promise.all([following, run]);
    expect(events.map((e) => e.type)).toEqual([
      'step_started',
      'tool_call',
      'tool_result',
      'step_started',
      'text',
      'run_ended',
    ]);
    expect(events.find((e) => e.type === 'text')).toMatchObject({ text: 'The sum is 5 today.' });
    expect(events.at(-1)).toMatchObject({ type: 'run_ended', status: 'completed' });
    expect(await all(agent.attach('w1', alice))).toEqual(events);
  });

  it("another user's session is not found, like a missing one; a bad cursor is a TypeError", async () => {
    model.open();
    await agent.run('hello', { sessionId: 's4', ...alice });
    await expect(all(agent.attach('s4', { userId: 'bob' }))).rejects.toThrow(SessionNotFoundError);
    await expect(all(agent.attach('nope', alice))).rejects.toThrow(SessionNotFoundError);
    expect(() => agent.attach('s4', { ...alice, after: 'nonsense' })).toThrow(TypeError);
    expect(() => agent.attach('', alice)).toThrow(TypeError);
    const events = await all(agent.attach('s4', alice));
    expect(events.map((e) => e.type)).toEqual(['step_started', 'text', 'run_ended']);
  });

  it('a paused run ends at its approval; after the decision, the end id goes on with the rest', async () => {
    const pay = tool({
      name: 'pay',
      description: 'Pays',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `paid ${amount}`,
    });
    const payer = new Agent({
      name: 'payer',
      model: new ScriptedModel([
        { toolCalls: [{ name: 'pay', arguments: { amount: 5 }, callId: 'pay_1' }] },
        { text: 'Paid.' },
      ]),
      tools: [pay],
      store: temp.store,
    });
    await payer.run('pay', { sessionId: 'p1', ...alice });
    const paused = await all(payer.attach('p1', alice));
    expect(paused.map((e) => e.type)).toEqual([
      'step_started',
      'tool_call',
      'approval_requested',
      'run_ended',
    ]);
    expect(paused[2]).toMatchObject({ callId: 'pay_1', name: 'pay' });
    expect(paused.at(-1)).toMatchObject({ status: 'awaitingApproval', interruption: 'approval' });
    await payer.approve('p1', 'pay_1', alice);
    const rest = await all(payer.attach('p1', { ...alice, after: paused.at(-1)!.id }));
    expect(rest.map((e) => e.type)).toEqual(['tool_result', 'step_started', 'text', 'run_ended']);
    expect(rest[0]).toMatchObject({ output: 'paid 5', isError: false });
    expect(rest.at(-1)).toMatchObject({ status: 'completed' });
    const whole = await all(payer.attach('p1', alice));
    expect(whole.filter((e) => e.type !== 'run_ended')).toEqual(
      [...paused, ...rest].filter((e) => e.type !== 'run_ended'),
    );
  });

  it("a turn's tool results come in call order, each once, whichever finishes first", async () => {
    const slowDone = deferred<string>();
    const slowStarted = deferred();
    const slow = tool({
      name: 'slow',
      description: 'Slow',
      parameters: z.object({}),
      execute: () => {
        slowStarted.resolve();
        return slowDone.promise;
      },
    });
    const fast = tool({
      name: 'fast',
      description: 'Fast',
      parameters: z.object({}),
      execute: () => 'fast',
    });
    const both = new Agent({
      name: 'both',
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: 'slow', arguments: {}, callId: 'slow_1' },
            { name: 'fast', arguments: {}, callId: 'fast_1' },
          ],
        },
        { text: 'Done.' },
      ]),
      tools: [slow, fast],
      store: temp.store,
    });
    const run = both.run('go', { sessionId: 't1', ...alice });
    await slowStarted.promise;
    const following = all(both.attach('t1', alice));
    slowDone.resolve('slow');
    const [events] = await Promise.all([following, run]);
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.callId)).toEqual(['slow_1', 'fast_1']);
    expect(events.map((e) => e.type)).toEqual([
      'step_started',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      'step_started',
      'text',
      'run_ended',
    ]);
    expectIncreasing(events);
    expect(await all(both.attach('t1', alice))).toEqual(
      events.map((e) => (e.type === 'text' ? { ...e, text: 'Done.' } : e)),
    );
  });

  it('reads the journal from the turn it is in, not the whole run, at each save', async () => {
    /** The memory store, counting the entries each run-journal read returns. */
    class CountingStore extends MemorySessionStore {
      readonly reads: { from: number | undefined; entries: number }[] = [];
      override async readRunJournal(key: SessionKey, runId: string, from?: number) {
        const entries: JournalEntry[] = await super.readRunJournal(key, runId, from);
        this.reads.push({ from, entries: entries.length });
        return entries;
      }
    }
    const store = new CountingStore();
    const go = deferred();
    const started = deferred();
    const step = tool({
      name: 'step',
      description: 'One step',
      parameters: z.object({ i: z.number() }),
      execute: async ({ i }) => {
        started.resolve();
        await go.promise;
        return `step ${i}`;
      },
    });
    const turns = 20;
    const looping = new Agent({
      name: 'loop',
      model: new ScriptedModel((_request, call) =>
        call < turns ? { toolCalls: [{ name: 'step', arguments: { i: call } }] } : { text: 'done' },
      ),
      tools: [step],
      maxTurns: turns + 2,
      store,
    });
    const run = looping.run('go', { sessionId: 'l1', ...alice });
    await started.promise;
    const before = store.reads.length;
    const following = all(looping.attach('l1', alice));
    go.resolve();
    const [events] = await Promise.all([following, run]);
    // The follower's reads (it always says from where; the runtime's own reads do not).
    const followed = store.reads.slice(before).filter((r) => r.from !== undefined);
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(turns);
    expect(events.at(-1)).toMatchObject({ type: 'run_ended', status: 'completed' });
    expect(await all(looping.attach('l1', alice))).toEqual(events);
    // The run journaled a model call and a tool call a turn, then its answer (2 * turns + 1
    // entries). Each read the follower made returned its turn and what came since, never the
    // whole run: what it read in all grows with the run, not with its square.
    const total = 2 * turns + 1;
    expect(followed.length).toBeGreaterThan(turns);
    expect(followed.reduce((sum, r) => sum + r.entries, 0)).toBeLessThan(4 * total);
    expect(followed.at(-1)!.from).toBe(2 * turns);
  });
});
