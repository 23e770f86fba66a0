import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  RunCancelledError,
  RunContext,
  getRunContext,
  tool,
  type AnyTool,
  type ToolExecuteOptions,
  type ToolResultItem,
} from '../../src/index.js';
import type { ScriptedResponse } from '../../src/models/scripted-model.js';
import { Agent } from '../../src/agent/agent.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { deferred } from '../helpers/async.js';

const add = tool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number(), note: z.string().optional() }),
  execute: ({ a, b }) => ({ sum: a + b, parts: [a, b] }),
});

let store: MemorySessionStore;
afterEach(async () => {
  await store?.close();
});

/** Runs one agent turn where the model makes `first`, then answers 'final'. */
async function runWith(first: ScriptedResponse, tools: AnyTool[] = [add]) {
  store = new MemorySessionStore();
  const model = new ScriptedModel([first, { text: 'final' }], { recordCalls: true });
  const agent = new Agent({ name: 'tools', model, tools, store });
  const result = await agent.run('go', { userId: 'alice' });
  model.assertComplete();
  const results = (model.calls[1]?.items ?? []).filter(
    (i): i is ToolResultItem => i.type === 'tool_result',
  );
  return { result, model, results };
}

describe('tool()', () => {
  it('generates a JSON Schema from the zod parameters', () => {
    expect(add.name).toBe('add');
    expect(add.jsonSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string' } },
      required: ['a', 'b'],
    });
    expect(add.jsonSchema.$schema).toBeUndefined();
    expect(add.needsApproval).toBe(false);
    expect(Object.isFrozen(add)).toBe(true);
  });

  it('rejects a parameters schema that is not a zod object', () => {
    const make = (parameters: unknown) => () =>
      tool({
        name: 'bad',
        description: 'd',
        parameters: parameters as z.ZodObject,
        execute: () => 1,
      });
    expect(make(z.string())).toThrow(TypeError);
    expect(make(z.array(z.number()))).toThrow(/zod object/);
    expect(make({ type: 'object', properties: {} })).toThrow(TypeError);
  });

  it('rejects names the model cannot call', () => {
    for (const name of ['', 'has space', 'dot.name', 'x'.repeat(65), 'semi;colon']) {
      expect(() =>
        tool({ name, description: 'd', parameters: z.object({}), execute: () => 1 }),
      ).toThrow(TypeError);
    }
    expect(() =>
      tool({ name: 'ok_name-2', description: 'd', parameters: z.object({}), execute: () => 1 }),
    ).not.toThrow();
  });
});

describe('tool calls in a run', () => {
  it('shows the model its tools and JSON-stringifies object outputs', async () => {
    const { result, model, results } = await runWith({
      toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }],
    });
    expect(model.calls[0]?.tools).toEqual([
      { name: 'add', description: 'Adds two numbers', parameters: add.jsonSchema },
    ]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ name: 'add', output: '{"sum":5,"parts":[2,3]}' });
    expect(results[0]?.isError).toBeFalsy();
    expect(result.output).toBe('final');
    expect(result.turns).toBe(2);
  });

  it('sends invalid JSON arguments back as an error item and goes on', async () => {
    let executed = 0;
    const counted = tool({
      name: add.name,
      description: add.description,
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: () => ++executed,
    });
    const { result, results } = await runWith(
      { toolCalls: [{ name: 'add', arguments: '{"a": 1, b' }] },
      [counted],
    );
    expect(executed).toBe(0);
    expect(results).toHaveLength(1);
    expect(results[0]?.isError).toBe(true);
    expect(results[0]?.output).toMatch(/"add".*not valid JSON/);
    expect(result.output).toBe('final');
  });

  it('sends a schema mismatch back as an error item naming the field', async () => {
    const { result, results } = await runWith({
      toolCalls: [{ name: 'add', arguments: { a: 'two', b: 3 } }],
    });
    expect(results[0]?.isError).toBe(true);
    expect(results[0]?.output).toContain('do not match the schema');
    expect(results[0]?.output).toMatch(/\ba: /);
    expect(results[0]?.output).not.toMatch(/\bb: /);
    expect(result.output).toBe('final');
  });

  it('answers an unknown tool name with an error item listing the available tools', async () => {
    const { result, results } = await runWith({
      toolCalls: [{ name: 'subtract', arguments: { a: 1, b: 2 } }],
    });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ name: 'subtract', isError: true });
    expect(results[0]?.output).toMatch(/unknown tool "subtract".*available: add/);
    expect(result.output).toBe('final');
  });

  it('turns a tool that throws into an error item with its message', async () => {
    const broken = tool({
      name: 'broken',
      description: 'always fails',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const { result, results } = await runWith({ toolCalls: [{ name: 'broken' }] }, [broken]);
    expect(results[0]).toMatchObject({ name: 'broken', isError: true });
    expect(results[0]?.output).toContain('disk on fire');
    expect(result.output).toBe('final');
  });

  it('passes execute its context, signal and call id', async () => {
    const received: { args: unknown; options: ToolExecuteOptions; live: RunContext }[] = [];
    const spy = tool({
      name: 'spy',
      description: 'records what it receives',
      parameters: z.object({ q: z.string() }),
      execute: (args, options) => {
        received.push({ args, options, live: getRunContext() });
        return 'seen';
      },
    });
    const { result, results } = await runWith(
      { toolCalls: [{ name: 'spy', arguments: { q: 'x' }, callId: 'call-xyz' }] },
      [spy],
    );
    expect(received).toHaveLength(1);
    const [{ args, options, live }] = received as [(typeof received)[0]];
    expect(args).toEqual({ q: 'x' });
    expect(options.callId).toBe('call-xyz');
    expect(options.context).toBeInstanceOf(RunContext);
    expect(options.context).toBe(live);
    expect(options.context.userId).toBe('alice');
    expect(options.context.runId).toBe(result.id);
    expect(options.signal).toBeInstanceOf(AbortSignal);
    expect(options.signal.aborted).toBe(false);
    expect(results[0]).toMatchObject({ callId: 'call-xyz', output: 'seen' });
  });

  it('aborting the run signal cancels an in-flight tool and rejects with RunCancelledError', async () => {
    store = new MemorySessionStore();
    const started = deferred();
    let sawAborted = false;
    const waiter = tool({
      name: 'waiter',
      description: 'waits until cancelled',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAborted = signal.aborted;
            reject(signal.reason as Error);
          });
          started.resolve();
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'waiter' }] }, { text: 'never' }], {
      recordCalls: true,
    });
    const agent = new Agent({ name: 'cancel', model, tools: [waiter], store });
    const controller = new AbortController();
    const run = agent.run('go', { signal: controller.signal });
    await started.promise;
    controller.abort();
    const error: unknown = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as RunCancelledError).code).toBe('RUN_CANCELLED');
    expect(sawAborted).toBe(true);
    expect(model.calls).toHaveLength(1);
  });
});
