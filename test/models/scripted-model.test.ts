import { describe, expect, it } from 'vitest';
import { AgentStateError, ModelError, ScriptExhaustedError, contentText } from '../../src/index.js';
import type { ModelRequest, ModelStreamEvent } from '../../src/models/model.js';
import { Agent } from '../../src/agent/agent.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { modelFailure } from '../helpers/model-failure.js';

const request = (content: string): ModelRequest => ({
  instructions: 'be nice',
  items: [{ type: 'message', role: 'user', content }],
  tools: [],
});

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('ScriptedModel', () => {
  it('answers from a list, with deterministic call ids and stringified arguments', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'a', arguments: { x: 1 } },
          { name: 'b', arguments: '{"raw":true}' },
          { name: 'c', callId: 'mine' },
        ],
      },
      { text: 'hello', usage: { inputTokens: 7 } },
    ]);
    const first = await model.generate(request('one'));
    expect(first.toolCalls).toEqual([
      { type: 'tool_call', callId: 'call_1_0', name: 'a', arguments: '{"x":1}' },
      { type: 'tool_call', callId: 'call_1_1', name: 'b', arguments: '{"raw":true}' },
      { type: 'tool_call', callId: 'mine', name: 'c', arguments: '{}' },
    ]);
    expect(first.finishReason).toBe('tool_calls');
    expect(first.text).toBeUndefined();
    const second = await model.generate({ ...request('two'), model: 'gpt-x' });
    expect(second).toMatchObject({
      text: 'hello',
      finishReason: 'stop',
      model: 'gpt-x',
      toolCalls: [],
    });
    expect(second.usage).toEqual({ inputTokens: 7, outputTokens: 5, cachedTokens: 0 });
    model.assertComplete();
  });

  it('records a copy of every request with recordCalls: true', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }], { recordCalls: true });
    const req = request('first');
    await model.generate(req);
    req.items.push({ type: 'message', role: 'user', content: 'mutated later' });
    await model.generate(request('second'));
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]?.items).toEqual([{ type: 'message', role: 'user', content: 'first' }]);
    expect(model.calls[1]?.instructions).toBe('be nice');
    expect(model.calls[1]?.items[0]).toMatchObject({ content: 'second' });
    expect(model.callCount).toBe(2);
  });

  it('keeps no request by default: it counts calls, and reading calls says how to record them', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    await model.generate(request('first'));
    await model.generate(request('second'));
    expect(model.callCount).toBe(2);
    expect(() => model.calls).toThrow(TypeError);
    expect(() => model.calls).toThrow(/recordCalls: true/);
  });

  it('answers from a function of the request and the call index', async () => {
    const seen: number[] = [];
    const model = new ScriptedModel((req, index) => {
      seen.push(index);
      const last = req.items.at(-1);
      return { text: `#${index}: ${last?.type === 'message' ? contentText(last.content) : ''}` };
    });
    expect((await model.generate(request('ping'))).text).toBe('#0: ping');
    expect((await model.generate(request('pong'))).text).toBe('#1: pong');
    expect(seen).toEqual([0, 1]);
    expect(() => model.assertComplete()).not.toThrow();
  });

  it('assertComplete throws while scripted responses are unused', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    await model.generate(request('x'));
    expect(() => model.assertComplete()).toThrow(/1 of 2/);
    await model.generate(request('y'));
    expect(() => model.assertComplete()).not.toThrow();
  });

  it('throws a typed ScriptExhaustedError for an unscripted call', async () => {
    const model = new ScriptedModel([{ text: 'only one' }]);
    await model.generate(request('x'));
    const error: unknown = await model.generate(request('y')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect((error as ScriptExhaustedError).code).toBe('SCRIPT_EXHAUSTED');
    expect((error as Error).message).toMatch(/call #2.*1 response/);
  });

  it('throws scripted errors, strings as ModelError', async () => {
    const custom = new RangeError('custom');
    const model = new ScriptedModel([{ error: 'rate limited' }, { error: custom }]);
    await expect(model.generate(request('x'))).rejects.toBeInstanceOf(ModelError);
    await expect(model.generate(request('y'))).rejects.toBe(custom);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const model = new ScriptedModel([{ text: 'a' }]);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(model.generate(request('x'), { signal: controller.signal })).rejects.toThrow(
      'stop',
    );
    expect(model.callCount).toBe(0);
  });

  it('streams text deltas, then tool call deltas, then the response', async () => {
    const model = new ScriptedModel([
      { text: 'Hello there, world', toolCalls: [{ name: 'look', arguments: { q: 1 } }] },
    ]);
    const events = await collect(model.stream(request('x')));
    const deltas = events.filter((e) => e.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => e.delta).join('')).toBe('Hello there, world');
    expect(events.findIndex((e) => e.type === 'tool_call_delta')).toBeGreaterThan(
      events.lastIndexOf(deltas.at(-1)!),
    );
    expect(events.find((e) => e.type === 'tool_call_delta')).toEqual({
      type: 'tool_call_delta',
      index: 0,
      callId: 'call_1_0',
      name: 'look',
      argumentsDelta: '{"q":1}',
    });
    const last = events.at(-1);
    expect(last?.type).toBe('response');
    expect(last?.type === 'response' && last.response.text).toBe('Hello there, world');
    expect(events.filter((e) => e.type === 'response')).toHaveLength(1);
  });
});

describe('ScriptedModel inside an agent run', () => {
  it('an exhausted script makes the run reject with a typed error', async () => {
    const store = new MemorySessionStore();
    const model = new ScriptedModel([{ toolCalls: [{ name: 'missing' }] }]);
    const agent = new Agent({ name: 'short', model, store });
    const error: unknown = await agent.run('hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentStateError);
    expect((error as AgentStateError).code).toBe('SCRIPT_EXHAUSTED');
    expect((error as Error).message).toMatch(/call #2/);
    expect(model.callCount).toBe(2);
    await store.close();
  });

  it('a scripted model error interrupts the run with a ModelError on the result', async () => {
    const store = new MemorySessionStore();
    const agent = new Agent({
      name: 'down',
      model: new ScriptedModel([{ error: 'upstream 503' }]),
      store,
    });
    const error = await modelFailure(agent.run('hi'));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toContain('upstream 503');
    await store.close();
  });

  it('agent.stream emits the scripted text as deltas and ends with the result', async () => {
    const store = new MemorySessionStore();
    const agent = new Agent({
      name: 'streamer',
      model: new ScriptedModel([{ text: 'one two three' }]),
      store,
    });
    const stream = agent.stream('hi');
    const deltas: string[] = [];
    for await (const event of stream) {
      if (event.type === 'text_delta') deltas.push(event.delta);
    }
    expect(deltas.join('')).toBe('one two three');
    expect((await stream.result).output).toBe('one two three');
    await store.close();
  });
});
