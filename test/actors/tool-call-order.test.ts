import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, tool, type Item } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { deferred } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Tool calls are tracked by their journal step, not by the call id the model gave them
 * (issue 8, point 5), and their results join the history in the order the model made the
 * calls, whatever order they finish in (point 6).
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const results = (items: readonly Item[]) =>
  items.flatMap((i) => (i.type === 'tool_result' ? [`${i.callId}=${i.output}`] : []));
const calls = (items: readonly Item[]) =>
  items.flatMap((i) => (i.type === 'tool_call' ? [i.callId] : []));

describe('tool calls', () => {
  it('two calls with the same id both run and both get a result item', async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    const echo = tool({
      name: 'echo',
      description: 'Echoes',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        // The first call finishes last: it must not be marked done by the second.
        if (text === 'a') await new Promise((resolve) => setImmediate(resolve));
        seen.push(text);
        return text;
      },
    });
    const model = new ScriptedModel(
      [
        {
          toolCalls: [
            { name: 'echo', callId: 'dup', arguments: { text: 'a' } },
            { name: 'echo', callId: 'dup', arguments: { text: 'b' } },
          ],
        },
        { text: 'done' },
      ],
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'a', model, store, tools: [echo] });
    const result = await agent.run('go', { sessionId: 's' });
    expect(result.output).toBe('done');
    expect(seen.sort()).toEqual(['a', 'b']);
    const history = await store.readHistory({ sessionId: 's' });
    expect(results(history)).toEqual(['dup=a', 'dup=b']);
    // The second model call saw both results.
    expect(results(model.calls[1]!.items)).toEqual(['dup=a', 'dup=b']);
  });

  it('a call without an id gets one, and its result is matched to it', async () => {
    const { store } = await temps.open();
    const echo = tool({
      name: 'echo',
      description: 'Echoes',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const model = new ScriptedModel(
      [
        {
          toolCalls: [
            { name: 'echo', callId: '', arguments: { text: 'x' } },
            { name: 'echo', callId: '', arguments: { text: 'y' } },
          ],
        },
        { text: 'done' },
      ],
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'a', model, store, tools: [echo] });
    await agent.run('go', { sessionId: 's' });
    const history = await store.readHistory({ sessionId: 's' });
    const ids = calls(history);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(results(history)).toEqual([`${ids[0]}=x`, `${ids[1]}=y`]);
  });

  it('parallel results are stored in the order of the calls, not of their finishing', async () => {
    const stored: string[][] = [];
    for (const first of ['slow', 'fast'] as const) {
      const { store } = await temps.open();
      const fastDone = deferred();
      const wait = tool({
        name: 'wait',
        description: 'Waits',
        parameters: z.object({ name: z.enum(['slow', 'fast']) }),
        execute: async ({ name }) => {
          if (name === 'slow') await fastDone.promise;
          else fastDone.resolve();
          return name;
        },
      });
      const order = first === 'slow' ? ['slow', 'fast'] : ['fast', 'slow'];
      const model = new ScriptedModel(
        [
          {
            toolCalls: order.map((name, i) => ({
              name: 'wait',
              callId: `c${i}`,
              arguments: { name },
            })),
          },
          { text: 'done' },
        ],
        { recordCalls: true },
      );
      const agent = new Agent({ name: 'a', model, store, tools: [wait] });
      await agent.run('go', { sessionId: 's' });
      const history = await store.readHistory({ sessionId: 's' });
      stored.push(results(history));
      expect(results(model.calls[1]!.items)).toEqual(results(history));
    }
    // The slow call finished last both times; the history follows the model's order.
    expect(stored).toEqual([
      ['c0=slow', 'c1=fast'],
      ['c0=fast', 'c1=slow'],
    ]);
  });

  it('after a crash, a finished result that waited for an earlier call keeps its place', async () => {
    const ran: string[] = [];
    const makeTools = (hangFirst: boolean) => [
      tool({
        name: 'step',
        description: 'A step',
        parameters: z.object({ name: z.string() }),
        idempotent: true, // the call in flight at the crash runs again
        execute: async ({ name }, { signal }) => {
          ran.push(name);
          if (name === 'first' && hangFirst) {
            await new Promise((_, reject) => signal.addEventListener('abort', reject));
          }
          return `${name} done`;
        },
      }),
    ];
    const script = () =>
      new ScriptedModel(
        (request) =>
          request.items.some((i) => i.type === 'tool_result')
            ? { text: 'done' }
            : {
                toolCalls: [
                  { name: 'step', callId: 'c0', arguments: { name: 'first' } },
                  { name: 'step', callId: 'c1', arguments: { name: 'second' } },
                ],
              },
        { recordCalls: true },
      );
    // Process 1: `second` finishes and is saved while `first` is still running; then it dies.
    const one = await temps.open();
    const agent1 = new Agent({
      name: 'a',
      model: script(),
      store: one.store,
      tools: makeTools(true),
    });
    const secondSaved = deferred();
    agent1.runtimeFor(one.store).on('SessionSaved', ({ record }) => {
      const run = (
        record.snapshot as {
          children: { run?: { snapshot: { context: { calls: { done: boolean }[] } } } };
        }
      ).children.run?.snapshot.context;
      if (run?.calls[1]?.done) secondSaved.resolve();
    });
    const controller = new AbortController();
    const crashed = agent1
      .run('go', { sessionId: 's', signal: controller.signal })
      .catch(() => 'gone');
    await secondSaved.promise;
    const disk = [];
    for await (const entry of one.store.backend.iterate({ gte: '', lt: '\uffff' }))
      disk.push(entry);
    controller.abort();
    await crashed;
    // Process 2 starts from what was on disk.
    const two = await temps.open();
    await two.store.backend.write(
      disk.map(([key, value]) => ({ type: 'put' as const, key, value })),
    );
    ran.length = 0;
    const agent2 = new Agent({
      name: 'a',
      model: script(),
      store: two.store,
      tools: makeTools(false),
    });
    const result = await agent2.resume('s');
    expect(result.output).toBe('done');
    expect(ran).toEqual(['first']); // the finished call did not run again
    const history = await two.store.readHistory({ sessionId: 's' });
    expect(results(history)).toEqual(['c0=first done', 'c1=second done']);
  });
});
