import { describe, expect, it } from 'vitest';
import { callFingerprint } from '../../src/runs/call-fingerprint.js';
import { z } from 'zod';
import { Agent, tool, type RunStreamEvent } from '../../src/index.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { add, collect, ULID } from '../helpers/agent-fixtures.js';
import { modelFailure } from '../helpers/model-failure.js';

type EventOf<K extends RunStreamEvent['type']> = Extract<RunStreamEvent, { type: K }>;
const ofType = <K extends RunStreamEvent['type']>(
  events: RunStreamEvent[],
  type: K,
): EventOf<K>[] => events.filter((e): e is EventOf<K> => e.type === type);

describe('agent.stream', () => {
  it('yields text deltas, tool progress and states, ending with run_finished', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 20, b: 22 } }] },
      { text: 'The sum of 20 and 22 is 42.' },
    ]);
    const agent = new Agent({ name: 'calc', model, tools: [add], store: new MemorySessionStore() });
    const stream = agent.stream('What is 20 + 22?', { sessionId: 'st-1', userId: 'carol' });
    const events = await collect(stream);
    const result = await stream.result;

    // run_finished comes last, exactly once, with the same result as `stream.result`.
    const last = events.at(-1);
    expect(last?.type).toBe('run_finished');
    expect(ofType(events, 'run_finished')).toHaveLength(1);
    if (last?.type !== 'run_finished') throw new Error('unreachable');
    expect(last.result).toBe(result);
    expect(result.output).toBe('The sum of 20 and 22 is 42.');
    expect(result.id).toMatch(ULID);
    expect(result.sessionId).toBe('st-1');
    expect(result.turns).toBe(2);
    expect(result.newItems.map((i) => i.type)).toEqual(['tool_call', 'tool_result', 'message']);

    // Text deltas arrive in pieces that concatenate to the final text.
    const deltas = ofType(events, 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.delta).join('')).toBe(result.output);

    // Tool progress: started (with the raw arguments), then finished (with the output).
    const started = ofType(events, 'tool_call_started');
    const finished = ofType(events, 'tool_call_finished');
    expect(started).toEqual([
      {
        type: 'tool_call_started',
        runId: result.id,
        callId: 'call_1_0',
        name: 'add',
        arguments: '{"a":20,"b":22}',
      },
    ]);
    expect(finished).toEqual([
      {
        type: 'tool_call_finished',
        runId: result.id,
        callId: 'call_1_0',
        name: 'add',
        output: '42',
        isError: false,
      },
    ]);
    expect(events.indexOf(started[0]!)).toBeLessThan(events.indexOf(finished[0]!));
    expect(events.indexOf(finished[0]!)).toBeLessThan(events.indexOf(deltas[0]!));

    // States of the run machine, in order: the first model call, the tools, the second model call.
    const states = ofType(events, 'state_entered');
    expect(states.every((s) => s.runId === result.id)).toBe(true);
    const names = states.map((s) => s.state);
    expect(names[0]).toBe('modelCall');
    expect(names).toContain('tools');
    expect(names.filter((n) => n === 'modelCall')).toHaveLength(2);
    expect(names.indexOf('tools')).toBeLessThan(names.lastIndexOf('modelCall'));
    expect(names.at(-1)).toBe('completed');
    // Every event of this run names it.
    for (const e of events) if ('runId' in e) expect(e.runId).toBe(result.id);
  });

  it('streams several runs independently', async () => {
    const model = new ScriptedModel([{ text: 'first answer' }, { text: 'second answer' }]);
    const agent = new Agent({ name: 'a', model, store: new MemorySessionStore() });
    const one = agent.stream('1');
    const events = await collect(one);
    const two = agent.stream('2');
    const second = await collect(two);
    expect(
      ofType(events, 'text_delta')
        .map((d) => d.delta)
        .join(''),
    ).toBe('first answer');
    expect(
      ofType(second, 'text_delta')
        .map((d) => d.delta)
        .join(''),
    ).toBe('second answer');
    expect((await two.result).id).not.toBe((await one.result).id);
  });

  it('announces a call needing approval and ends interrupted', async () => {
    let executed = false;
    const refund = tool({
      name: 'refund',
      description: 'Refunds an order',
      parameters: z.object({ orderId: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: () => {
        executed = true;
        return 'refunded';
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { orderId: 'o-7', amount: 30 } }] },
    ]);
    const agent = new Agent({
      name: 'support',
      model,
      tools: [refund],
      store: new MemorySessionStore(),
    });
    const stream = agent.stream('Refund order o-7', { sessionId: 'ap-1', userId: 'dave' });
    const events = await collect(stream);
    const result = await stream.result;

    const requested = ofType(events, 'approval_requested');
    expect(requested).toEqual([
      {
        type: 'approval_requested',
        runId: result.id,
        interruption: {
          callId: 'call_1_0',
          toolName: 'refund',
          arguments: { orderId: 'o-7', amount: 30 },
          agent: 'support',
          runId: result.id,
          fingerprint: callFingerprint('refund', JSON.stringify({ orderId: 'o-7', amount: 30 })),
        },
      },
    ]);
    expect(ofType(events, 'state_entered').map((s) => s.state)).toContain('awaitingApproval');
    expect(events.at(-1)).toEqual({ type: 'run_finished', result });
    expect(executed).toBe(false);
    expect(ofType(events, 'tool_call_started')).toEqual([]);
    expect(result.interrupted).toBe(true);
    expect(result.interruptionReason).toBe('approval');
    expect(result.output).toBeUndefined();
    expect(result.interruptions).toEqual([requested[0]!.interruption]);
    expect(result.state.interruptions).toEqual(result.interruptions);
  });

  it('ends with the interrupted result and its typed error when the model fails', async () => {
    const model = new ScriptedModel([{ error: 'upstream down' }]);
    const agent = new Agent({ name: 'a', model, store: new MemorySessionStore() });
    const stream = agent.stream('hi');
    const seen: RunStreamEvent[] = [];
    for await (const e of stream) seen.push(e);
    const error = await modelFailure(stream.result);
    expect(error.message).toContain('upstream down');
    expect(ofType(seen, 'run_finished')).toEqual([
      { type: 'run_finished', result: await stream.result },
    ]);
  });
});

describe('agent.streamDecide', () => {
  const pay = tool({
    name: 'pay',
    description: 'Pays',
    parameters: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => `paid ${amount}`,
  });
  const twoCalls = () =>
    new ScriptedModel([
      {
        toolCalls: [
          { name: 'pay', arguments: { amount: 1 }, callId: 'p1' },
          { name: 'pay', arguments: { amount: 2 }, callId: 'p2' },
        ],
      },
      { text: 'done' },
    ]);

  it('decides several waiting calls at once and streams the continued run', async () => {
    const agent = new Agent({
      name: 'payer',
      model: twoCalls(),
      tools: [pay],
      store: new MemorySessionStore(),
    });
    const paused = await agent.run('pay twice', { sessionId: 'sd-1', userId: 'dan' });
    expect(paused.interruptions.map((i) => i.callId)).toEqual(['p1', 'p2']);
    const stream = agent.streamDecide(
      'sd-1',
      [
        { callId: 'p1', approve: true },
        { callId: 'p2', approve: false, message: 'one is enough' },
      ],
      { userId: 'dan' },
    );
    const events = await collect(stream);
    const finished = ofType(events, 'tool_call_finished')
      .map((e) => [e.callId, e.output])
      .sort();
    expect(finished).toEqual([
      ['p1', 'paid 1'],
      ['p2', 'one is enough'],
    ]);
    expect((await stream.result).output).toBe('done');
  });

  it("another user's session is not found and nothing runs", async () => {
    const model = twoCalls();
    const agent = new Agent({
      name: 'payer',
      model,
      tools: [pay],
      store: new MemorySessionStore(),
    });
    await agent.run('pay twice', { sessionId: 'sd-2', userId: 'dan' });
    const stream = agent.streamDecide('sd-2', [{ callId: 'p1', approve: true }], { userId: 'eve' });
    await expect(collect(stream)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(model.callCount).toBe(1);
  });

  it.each([
    ['no decision', []],
    ['a decision without approve', [{ callId: 'p1' }]],
    ['an empty call id', [{ callId: '', approve: true }]],
    ['an unknown field', [{ callId: 'p1', approve: true, always: true }]],
  ])('%s is a TypeError at the call', (_, decisions) => {
    const agent = new Agent({ name: 'payer', model: twoCalls(), tools: [pay] });
    expect(() => agent.streamDecide('sd-3', decisions as never, { userId: 'dan' })).toThrow(
      TypeError,
    );
  });
});
