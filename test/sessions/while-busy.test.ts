import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { tool } from '../../src/index.js';
import { Agent } from '../../src/agent/agent.js';
import { RunInProgressError } from '../../src/errors/session-errors.js';
import { RunCancelledError } from '../../src/errors/run-errors.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import type { ModelRequest } from '../../src/models/model.js';
import { contentText, toInputItems } from '../../src/items/item.js';
import type { WhileBusy } from '../../src/core/busy-policy.js';
import { deferred, until, type Deferred } from '../helpers/async.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 's1', userId: 'alice' };

/** The text of the last user message a request holds. */
function lastUser(request: ModelRequest): string {
  const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
  const last = users.at(-1);
  return last && last.type === 'message' ? contentText(last.content) : '';
}

/** An agent on a fresh LevelDB store whose first model call waits until the test lets it go. */
async function setup(whileBusy?: WhileBusy) {
  const { store } = await temps.open();
  const first: Deferred<void> = deferred();
  let calls = 0;
  let firstStarted = false;
  const model = new ScriptedModel(async (request) => {
    calls++;
    const text = lastUser(request);
    if (text === 'one' && !firstStarted) {
      firstStarted = true;
      await first.promise;
    }
    return { text: `answer to ${text}` };
  });
  const agent = new Agent({ name: 'a', model, store, ...(whileBusy ? { whileBusy } : {}) });
  const started = () => until(() => firstStarted, 'the first model call');
  return { store, model, agent, first, calls: () => calls, started };
}

describe('a message to an idle session whose inbox holds messages', () => {
  for (const policy of ['reject', 'queue', 'interrupt'] as const) {
    it(`'${policy}': the queued messages are answered first, in order, then it`, async () => {
      const s = await setup();
      // Run by another runtime (as a process before this one): this one's cache lacks the session.
      await new Agent({ name: 'a', model: s.model, store: s.store }).run('zero', key);
      // Left by a process whose run ended as they came (no run of this one read the inbox).
      for (const text of ['one', 'two']) {
        const items = toInputItems(text);
        await s.store.queueMessage({ key, kind: 'queue', items, options: {}, at: 1 });
      }
      s.first.resolve();
      const three = await s.agent.run('three', { ...key, whileBusy: policy });
      expect(three.output).toBe('answer to three');
      const texts = (await s.store.readHistory(key)).map((i) =>
        i.type === 'message' ? contentText(i.content) : i.type,
      );
      expect(texts.filter((t) => !t.startsWith('answer'))).toEqual(['zero', 'one', 'two', 'three']);
      expect(s.calls()).toBe(4);
      expect(await s.store.queuedMessages(key)).toEqual([]);
    });
  }
});

describe('the inbox read before a message', () => {
  it('is skipped on a store one process holds for a session this runtime ran since it opened', async () => {
    const s = await setup();
    const reads = vi.spyOn(s.store, 'queuedMessages');
    await s.agent.run('zero', key);
    // A session new to this runtime: messages a process before it left go first.
    expect(reads).toHaveBeenCalledTimes(1);
    await s.agent.run('after', key);
    await s.agent.run('and after', key);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});

describe("whileBusy: a message sent while the session's run executes", () => {
  it("'reject' (the default) refuses the second message and stores nothing of it", async () => {
    const s = await setup();
    const one = s.agent.run('one', key);
    await s.started();
    await expect(s.agent.run('two', key)).rejects.toBeInstanceOf(RunInProgressError);
    s.first.resolve();
    expect((await one).output).toBe('answer to one');
    const history = await s.store.readHistory(key);
    expect(history).toHaveLength(2);
    expect(s.calls()).toBe(1);
  });

  it("'queue' answers both messages, each exactly once, in the order sent", async () => {
    const s = await setup('queue');
    const one = s.agent.run('one', key);
    await s.started();
    const two = s.agent.run('two', key);
    const three = s.agent.run('three', { ...key, whileBusy: 'queue' });
    s.first.resolve();
    const results = await Promise.all([one, two, three]);
    expect(results.map((r) => r.output)).toEqual([
      'answer to one',
      'answer to two',
      'answer to three',
    ]);
    expect(s.calls()).toBe(3);
    expect(await s.store.queuedMessages(key)).toEqual([]); // each taken once, with its run
    const history = await s.store.readHistory(key);
    expect(history.map((i) => (i.type === 'message' ? contentText(i.content) : i.type))).toEqual([
      'one',
      'answer to one',
      'two',
      'answer to two',
      'three',
      'answer to three',
    ]);
  });

  it("'steer' adds both racing messages to the running run before its next model call", async () => {
    const { store } = await temps.open();
    const toolStarted = deferred();
    const toolGo = deferred();
    const look = tool({
      name: 'look',
      description: 'Looks',
      parameters: z.object({}),
      execute: async () => {
        toolStarted.resolve();
        await toolGo.promise;
        return 'looked';
      },
    });
    const seen: string[][] = [];
    const model = new ScriptedModel((request) => {
      seen.push(request.items.map((i) => (i.type === 'message' ? contentText(i.content) : i.type)));
      return seen.length === 1
        ? { toolCalls: [{ name: 'look', arguments: {}, callId: 'look_1' }] }
        : { text: `answer to ${lastUser(request)}` };
    });
    const agent = new Agent({ name: 'a', model, store, tools: [look], whileBusy: 'steer' });
    const one = agent.run('one', key);
    await toolStarted.promise;
    const two = agent.run('two', key);
    const three = agent.run('three', key);
    await until(async () => (await store.queuedMessages(key)).length === 2, 'both stored');
    toolGo.resolve();
    const results = await Promise.all([one, two, three]);
    // One run answered all three: the steers joined it before its second model call.
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results[0].output).toBe('answer to three');
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(['one', 'tool_call', 'tool_result', 'two', 'three']);
    expect(await store.queuedMessages(key)).toEqual([]);
    const texts = (await store.readHistory(key)).map((i) =>
      i.type === 'message' ? contentText(i.content) : i.type,
    );
    expect(texts).toEqual(['one', 'tool_call', 'tool_result', 'two', 'three', 'answer to three']);
  });

  it("'steer' sent after the run's last model call becomes the next run", async () => {
    const s = await setup('steer');
    const one = s.agent.run('one', key);
    await s.started(); // the run's only model call is under way: no later call takes it
    const two = s.agent.run('two', key);
    await until(async () => (await s.store.queuedMessages(key)).length === 1, 'stored');
    s.first.resolve();
    const [a, b] = await Promise.all([one, two]);
    expect([a.output, b.output]).toEqual(['answer to one', 'answer to two']);
    expect(a.id).not.toBe(b.id);
    expect(s.calls()).toBe(2);
    expect(await s.store.queuedMessages(key)).toEqual([]);
    expect((await s.store.readHistory(key)).length).toBe(4);
  });

  it("'interrupt' cancels the running run and answers the new message", async () => {
    const s = await setup();
    const one = s.agent.run('one', key);
    await s.started();
    const two = s.agent.run('two', { ...key, whileBusy: 'interrupt' });
    await expect(one).rejects.toBeInstanceOf(RunCancelledError);
    s.first.resolve(); // the cancelled call's answer comes too late to count
    expect((await two).output).toBe('answer to two');
    expect(s.calls()).toBe(2);
    const texts = (await s.store.readHistory(key))
      .filter((i) => i.type === 'message')
      .map((i) => (i.type === 'message' ? contentText(i.content) : ''));
    expect(texts).toEqual(['one', 'two', 'answer to two']);
  });

  it("'queue' through agent.stream: the queued stream's events are its own run's", async () => {
    const s = await setup('queue');
    const one = s.agent.stream('one', key);
    await s.started();
    const two = s.agent.stream('two', key);
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of two) seen.push(event.type);
    })();
    s.first.resolve();
    for await (const _ of one) void _;
    await reading;
    expect((await one.result).output).toBe('answer to one');
    expect((await two.result).output).toBe('answer to two');
    expect(seen.at(-1)).toBe('run_finished');
    expect(s.calls()).toBe(2);
  });

  it('a queued message whose caller gives up is dropped from the inbox, never answered', async () => {
    const s = await setup('queue');
    const one = s.agent.run('one', key);
    await s.started();
    const giveUp = new AbortController();
    const two = s.agent.run('two', { ...key, signal: giveUp.signal });
    giveUp.abort();
    await expect(two).rejects.toBeInstanceOf(RunCancelledError);
    s.first.resolve();
    await one;
    expect(s.calls()).toBe(1);
    expect(await s.store.readHistory(key)).toHaveLength(2);
    await until(async () => (await s.store.queuedMessages(key)).length === 0, 'the drop');
  });

  it("an AgentSession's runs follow the agent's whileBusy", async () => {
    const s = await setup('queue');
    const chat = await s.agent.createSession(key);
    try {
      const one = chat.run('one');
      await s.started();
      const two = chat.run('two');
      s.first.resolve();
      expect((await Promise.all([one, two])).map((r) => r.output)).toEqual([
        'answer to one',
        'answer to two',
      ]);
      expect(s.calls()).toBe(2);
      // The agent's own calls and the session's wait for each other's runs.
      const three = chat.run('one'); // the model holds no call now: answered at once
      const four = s.agent.run('four', key);
      expect((await Promise.all([three, four])).map((r) => r.output)).toEqual([
        'answer to one',
        'answer to four',
      ]);
    } finally {
      await chat.close();
    }
  });

  it("'interrupt' during a tool call answers the open call as cancelled", async () => {
    const { store } = await temps.open();
    const toolStarted = deferred();
    const toolGo = deferred();
    let toolRuns = 0;
    const slow = tool({
      name: 'slow',
      description: 'Takes its time',
      parameters: z.object({}),
      execute: async () => {
        toolRuns++;
        toolStarted.resolve();
        await toolGo.promise;
        return 'slow done';
      },
    });
    let calls = 0;
    const model = new ScriptedModel((request) => {
      calls++;
      const text = lastUser(request);
      return text === 'one'
        ? { toolCalls: [{ name: 'slow', arguments: {}, callId: 'slow_1' }] }
        : { text: `answer to ${text}` };
    });
    const agent = new Agent({ name: 'a', model, store, tools: [slow], whileBusy: 'interrupt' });
    const one = agent.run('one', key);
    await toolStarted.promise;
    const two = agent.run('two', key);
    await expect(one).rejects.toBeInstanceOf(RunCancelledError);
    toolGo.resolve();
    expect((await two).output).toBe('answer to two');
    expect(calls).toBe(2);
    expect(toolRuns).toBe(1);
    const history = await store.readHistory(key);
    const results = history.filter((i) => i.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ callId: 'slow_1', isError: true });
    expect(history.at(-1)).toMatchObject({ type: 'message', content: 'answer to two' });
  });

  it('a per-call whileBusy wins over the agent option', async () => {
    const s = await setup('queue');
    const one = s.agent.run('one', key);
    await s.started();
    await expect(s.agent.run('two', { ...key, whileBusy: 'reject' })).rejects.toBeInstanceOf(
      RunInProgressError,
    );
    s.first.resolve();
    await one;
    expect(s.calls()).toBe(1);
  });

  it('an unknown policy is a TypeError at construction and at the call', async () => {
    const s = await setup();
    expect(
      () => new Agent({ name: 'b', model: new ScriptedModel([]), whileBusy: 'later' as never }),
    ).toThrow(/whileBusy/);
    expect(() => s.agent.run('x', { ...key, whileBusy: 'later' as never })).toThrow(TypeError);
    expect(await s.store.list({ userId: 'alice' })).toMatchObject({ sessions: [] });
  });
});
