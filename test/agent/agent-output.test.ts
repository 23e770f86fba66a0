import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentStateError,
  MaxTurnsExceededError,
  ModelError,
  OutputValidationError,
  RunState,
  type LevelSessionStore,
  type Model,
  type ModelResponse,
  type ModelStreamEvent,
} from '../../src/index.js';
import { MemorySessionStore, ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { add, rejection, tempLevelStore } from '../helpers/agent-fixtures.js';
import { modelFailure } from '../helpers/model-failure.js';

const Weather = z.object({ city: z.string(), tempC: z.number() });

describe('outputType', () => {
  it('parses a valid JSON final answer and sends the schema to the model', async () => {
    const model = new ScriptedModel([{ text: '{"city":"Oslo","tempC":-3}' }], {
      recordCalls: true,
    });
    const agent = new Agent({
      name: 'w',
      model,
      outputType: Weather,
      store: new MemorySessionStore(),
    });
    const result = await agent.run('Weather in Oslo?');
    expect(result.output).toEqual({ city: 'Oslo', tempC: -3 });
    const schema = model.calls[0]?.outputSchema;
    expect(schema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, tempC: { type: 'number' } },
      required: ['city', 'tempC'],
    });
  });

  it('validates only the final answer, after tool calls', async () => {
    const model = new ScriptedModel(
      [
        { toolCalls: [{ name: 'add', arguments: { a: -5, b: 2 } }] },
        { text: '{"city":"Oslo","tempC":-3}' },
      ],
      { recordCalls: true },
    );
    const agent = new Agent({
      name: 'w',
      model,
      tools: [add],
      outputType: Weather,
      store: new MemorySessionStore(),
    });
    const result = await agent.run('Weather?');
    expect(result.output).toEqual({ city: 'Oslo', tempC: -3 });
    expect(model.calls.every((c) => c.outputSchema !== undefined)).toBe(true);
  });

  it.each([
    ['not JSON', 'It is cold in Oslo', /not valid JSON/],
    ['a schema mismatch', '{"city":"Oslo","tempC":"cold"}', /tempC/],
  ])('rejects %s with OutputValidationError', async (_label, text, message) => {
    const agent = new Agent({
      name: 'w',
      model: new ScriptedModel([{ text }], { recordCalls: true }),
      outputType: Weather,
      store: new MemorySessionStore(),
    });
    const error = await rejection(agent.run('Weather?'));
    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).code).toBe('OUTPUT_VALIDATION');
    expect(error.message).toMatch(message);
  });

  it('leaves plain text output (no schema) when there is no outputType', async () => {
    const model = new ScriptedModel([{ text: '{"not":"parsed"}' }], { recordCalls: true });
    const result = await new Agent({ name: 'a', model, store: new MemorySessionStore() }).run('hi');
    expect(result.output).toBe('{"not":"parsed"}');
    expect(model.calls[0]?.outputSchema).toBeUndefined();
  });
});

/** A model whose every call throws `error`. */
class ThrowingModel implements Model {
  readonly name = 'throwing';
  constructor(private readonly error: unknown) {}
  async generate(): Promise<ModelResponse> {
    throw this.error;
  }
  // eslint-disable-next-line require-yield
  async *stream(): AsyncIterable<ModelStreamEvent> {
    throw this.error;
  }
}

describe('model errors', () => {
  it('interrupts with a ModelError on the result when the scripted model errors', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([{ error: 'boom' }], { recordCalls: true }),
      store: new MemorySessionStore(),
    });
    const error = await modelFailure(agent.run('hi'));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toContain('boom');
  });

  it.each([
    ['a plain Error', new Error('socket hang up')],
    ['a TypeError', new TypeError('socket hang up')],
    ['a thrown string', 'socket hang up'],
  ])('turns %s from a custom Model into a typed ModelError', async (_label, thrown) => {
    const agent = new Agent({
      name: 'a',
      model: new ThrowingModel(thrown),
      store: new MemorySessionStore(),
    });
    const error = await modelFailure(agent.run('hi', { sessionId: 'me-1' }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toBeInstanceOf(AgentStateError);
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toContain('socket hang up');
    // The interrupted run is saved; resuming it (here with a model that answers) completes it.
    // Another model is another definition: the agent declares that change compatible.
    const retry = new Agent({
      name: 'a',
      model: new ScriptedModel([{ text: 'ok' }], { recordCalls: true }),
      store: agent.options.store,
      compatibleWith: ({ changes }) => changes.every((c) => c.part === 'model'),
    });
    expect(await retry.resume('me-1')).toMatchObject({ output: 'ok', interrupted: false });
  });
});

/** A script that calls `add` on the first `toolTurns` calls, then answers. */
const toolsThenAnswer =
  (toolTurns: number) =>
  (_request: unknown, index: number): ScriptedResponse =>
    index < toolTurns
      ? { toolCalls: [{ name: 'add', arguments: { a: index, b: 1 } }] }
      : { text: `done after ${index + 1}` };

describe('maxTurns', () => {
  let level: { store: LevelSessionStore; cleanup(): Promise<void> };
  beforeEach(async () => {
    level = await tempLevelStore();
  });
  afterEach(async () => {
    await level.cleanup();
  });

  it('defaults to 10 model calls, then throws MaxTurnsExceededError with a RunState', async () => {
    const model = new ScriptedModel(
      () => ({
        toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }],
      }),
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'loop', model, tools: [add], store: new MemorySessionStore() });
    const error = await rejection(agent.run('loop forever'));
    expect(error).toBeInstanceOf(MaxTurnsExceededError);
    const maxed = error as MaxTurnsExceededError<RunState>;
    expect(maxed.code).toBe('MAX_TURNS_EXCEEDED');
    expect(maxed.maxTurns).toBe(10);
    expect(model.calls).toHaveLength(10);
    expect(maxed.state).toBeInstanceOf(RunState);
    expect(maxed.state?.data).toMatchObject({
      status: 'interrupted',
      interruptionReason: 'maxTurns',
      turn: 10,
    });
    // Ten tool calls and their results were recorded.
    expect(maxed.state?.history.filter((i) => i.type === 'tool_result')).toHaveLength(10);
  });

  it('honours AgentOptions.maxTurns and the run option, which wins', async () => {
    const model = new ScriptedModel(toolsThenAnswer(100), { recordCalls: true });
    const agent = new Agent({
      name: 'loop',
      model,
      tools: [add],
      maxTurns: 3,
      store: new MemorySessionStore(),
    });
    const first = (await rejection(agent.run('go'))) as MaxTurnsExceededError;
    expect(first.maxTurns).toBe(3);
    expect(model.calls).toHaveLength(3);

    const second = (await rejection(agent.run('go', { maxTurns: 5 }))) as MaxTurnsExceededError;
    expect(second).toBeInstanceOf(MaxTurnsExceededError);
    expect(second.maxTurns).toBe(5);
    expect(model.calls).toHaveLength(8);
  });

  it('resumes an ephemeral run (no store) from err.state with a higher limit', async () => {
    const model = new ScriptedModel(toolsThenAnswer(12), { recordCalls: true });
    const agent = new Agent({ name: 'loop', model, tools: [add] });
    const error = (await rejection(agent.run('count to 12'))) as MaxTurnsExceededError<RunState>;
    expect(error).toBeInstanceOf(MaxTurnsExceededError);
    expect(error.state?.data.session).toBeDefined(); // the state carries the whole session
    // Survives serialisation, as it would across processes.
    const state = RunState.fromJSON(JSON.stringify(error.state));
    const result = await agent.resume(state, { maxTurns: 15 });
    expect(result.output).toBe('done after 13');
    expect(result.id).toBe(state.runId);
    expect(result.turns).toBe(13);
    expect(model.calls).toHaveLength(13);
    // The resumed model call saw the whole conversation so far.
    expect(model.calls[10]?.items.filter((i) => i.type === 'tool_result')).toHaveLength(10);
    expect(result.newItems.filter((i) => i.type === 'tool_call')).toHaveLength(12);
    expect(result.usage.inputTokens).toBe(13 * 10);
  });

  it('resumes a run stored in LevelDB from err.state with a higher limit', async () => {
    const model = new ScriptedModel(toolsThenAnswer(12), { recordCalls: true });
    const agent = new Agent({ name: 'loop', model, tools: [add], store: level.store });
    const error = (await rejection(
      agent.run('count to 12', { sessionId: 'mt-1', userId: 'erin' }),
    )) as MaxTurnsExceededError<RunState>;
    expect(error).toBeInstanceOf(MaxTurnsExceededError);
    expect(error.state?.data.session).toBeUndefined(); // the store holds the session
    expect(error.state?.sessionId).toBe('mt-1');
    expect(error.state?.userId).toBe('erin');

    const result = await agent.resume(error.state!, { maxTurns: 15 });
    expect(result.output).toBe('done after 13');
    expect(result.sessionId).toBe('mt-1');
    expect(result.turns).toBe(13);
    expect(model.calls).toHaveLength(13);
    const info = await agent
      .runtimeFor(level.store)
      .getSessionInfo({ sessionId: 'mt-1', userId: 'erin' });
    expect(info.historyLength).toBe(1 + 12 * 2 + 1);
  });
});
