import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  OpenAIModel,
  SessionRuntime,
  changeBudget,
  continueRun,
  sendMessage,
  tool,
  toolkit,
  type AgentOptions,
} from '../../src/index.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { closestName, editDistance } from '../../src/validation/closest-name.js';
import { add } from '../helpers/agent-fixtures.js';

/**
 * Mistakes a JavaScript caller (or a TypeScript caller through a cast) can make fail at the
 * call with a `TypeError` naming the call and the option, before anything runs or is stored.
 */

/** Calls `fn` as untyped JavaScript would. */
const js =
  (fn: (...args: never[]) => unknown, ...args: unknown[]) =>
  () =>
    (fn as (...a: unknown[]) => unknown)(...args);

const BAD_LIMITS = [Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY, '3'];

function setup(options: Partial<AgentOptions> = {}) {
  const model = new ScriptedModel([{ text: 'hi' }], { recordCalls: true });
  const store = new MemorySessionStore();
  const agent = new Agent({ name: 'a', model, store, ...options });
  return { agent, model, store };
}

describe('closest names', () => {
  it('measures edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests the name most likely meant, ignoring case, _ and -', () => {
    const names = ['sessionId', 'userId', 'metadata', 'store', 'signal', 'maxTurns'];
    expect(closestName('session_id', names)).toBe('sessionId');
    expect(closestName('maxTurn', names)).toBe('maxTurns');
    expect(closestName('user-id', names)).toBe('userId');
    expect(closestName('baseUrl', ['model', 'baseURL', 'apiKey'])).toBe('baseURL');
    expect(closestName('banana', names)).toBeUndefined();
  });
});

describe('new Agent()', () => {
  const model = new ScriptedModel([], { recordCalls: true });

  it('names the closest valid option for an unknown one', () => {
    expect(js((o: never) => new Agent(o), { name: 'a', model, max_turns: 3 })).toThrow(
      new TypeError(
        'new Agent(): unknown option "max_turns" (did you mean "maxTurns"?); valid options are name, instructions, model, modelSettings, tools, toolkits, maxTurns, outputType, store, clock, prices, approvalTimeoutMs, permissions, maxSubAgentDepth, handoffs, history, memory, userBudget, redact, onToolError, snapshotMigrations, lease, cachedSessions, liveSessions, inspect, inputGuardrails, outputGuardrails, telemetry, logger, durability, version, compatibleWith, maxRecoveries, onRecoveryExhausted, whileBusy',
      ),
    );
    expect(js((o: never) => new Agent(o), { name: 'a', model, colour: 'red' })).toThrow(
      /unknown option "colour"; valid options/,
    );
  });

  it('refuses a model that does not implement Model', () => {
    const make = (m: unknown) => js((o: never) => new Agent(o), { name: 'a', model: m });
    const message =
      /^new Agent\(\): option "model" must implement Model \(generate and stream functions\)/;
    expect(make('gpt-4o-mini')).toThrow(TypeError);
    expect(make('gpt-4o-mini')).toThrow(/, got "gpt-4o-mini"$/);
    expect(make(undefined)).toThrow(message);
    expect(make({ name: 'm', generate: () => undefined })).toThrow(message);
    expect(make(new OpenAIModel({ model: 'x', apiKey: 'k' }))).not.toThrow();
  });

  it('needs a non-empty name and an options object', () => {
    expect(js((o: never) => new Agent(o), { model })).toThrow(
      'new Agent(): option "name" must be a non-empty string, got undefined',
    );
    expect(js((o: never) => new Agent(o), { name: '', model })).toThrow(TypeError);
    expect(js((o: never) => new Agent(o), { name: 7, model })).toThrow(/got 7$/);
    expect(js((o: never) => new Agent(o))).toThrow('new Agent(): options must be an object');
    expect(js((o: never) => new Agent(o), 'agent')).toThrow(/got "agent"$/);
  });

  it('needs positive integer limits', () => {
    for (const value of BAD_LIMITS) {
      expect(js((o: never) => new Agent(o), { name: 'a', model, maxTurns: value })).toThrow(
        /^new Agent\(\): option "maxTurns" must be a positive integer, got /,
      );
      expect(
        js((o: never) => new Agent(o), { name: 'a', model, approvalTimeoutMs: value }),
      ).toThrow(/option "approvalTimeoutMs" must be a positive integer/);
      expect(js((o: never) => new Agent(o), { name: 'a', model, cachedSessions: value })).toThrow(
        /option "cachedSessions" must be a positive integer/,
      );
      if (value !== 0) {
        expect(js((o: never) => new Agent(o), { name: 'a', model, liveSessions: value })).toThrow(
          /option "liveSessions" must be a non-negative integer/,
        );
      }
    }
    expect(() => new Agent({ name: 'a', model, maxTurns: 1, approvalTimeoutMs: 1 })).not.toThrow();
  });

  it('needs budgets of known, non-negative, finite limits', () => {
    const make = (userBudget: unknown) =>
      js((o: never) => new Agent(o), { name: 'a', model, userBudget });
    expect(make({ maxCostUsd: -1 })).toThrow(
      'new Agent(): option "userBudget.maxCostUsd" must be a non-negative finite number, got -1',
    );
    expect(make({ maxTokens: Number.NaN })).toThrow(/"userBudget.maxTokens"/);
    expect(make({ maxTurns: 2.5 })).toThrow(/"userBudget.maxTurns" must be a non-negative integer/);
    expect(make({ maxTurn: 3 })).toThrow(/did you mean "userBudget.maxTurns"/);
    expect(make(5)).toThrow('new Agent(): option "userBudget" must be an object, got 5');
    expect(make({ maxTurns: 0, maxTokens: 10, maxCostUsd: 0.5 })).not.toThrow();
  });

  it('checks the kind of every other option', () => {
    const make = (extra: Record<string, unknown>) =>
      js((o: never) => new Agent(o), { name: 'a', model, ...extra });
    expect(make({ tools: add })).toThrow(
      /option "tools" must be an array of tools made by tool\(\)/,
    );
    expect(make({ tools: ['add'] })).toThrow(/"tools"/);
    expect(make({ toolkits: [{ name: 'k' }] })).toThrow(/"toolkits"/);
    expect(make({ instructions: 42 })).toThrow(/"instructions" must be a string or a function/);
    expect(make({ outputType: { type: 'object' } })).toThrow(/"outputType" must be a zod schema/);
    expect(make({ store: './db' })).toThrow(/"store" must implement SessionStore/);
    expect(make({ clock: Date })).toThrow(/"clock" must implement Clock \(now and sleepUntil/);
    expect(make({ prices: 'cheap' })).toThrow(/"prices" must be an object/);
    expect(
      make({
        tools: [add],
        toolkits: [toolkit({ name: 'k', create: () => ({ tools: [] }) })],
        instructions: () => 'be brief',
        outputType: z.object({ n: z.number() }),
        store: new MemorySessionStore(),
        prices: {},
      }),
    ).not.toThrow();
  });
});

describe('agent.run(), agent.stream(), agent.resume()', () => {
  it('refuses an unknown option at the call, before anything runs or is stored', async () => {
    const { agent, model, store } = setup();
    expect(js(agent.run.bind(agent), 'hi', { session_id: 'conv-1' })).toThrow(
      /^agent\.run\(\): unknown option "session_id" \(did you mean "sessionId"\?\)/,
    );
    expect(js(agent.stream.bind(agent), 'hi', { user: 'alice' })).toThrow(
      /^agent\.stream\(\): unknown option "user" \(did you mean "userId"\?\)/,
    );
    expect(model.calls).toHaveLength(0);
    expect((await store.list()).sessions).toEqual([]);
  });

  it('needs input that is a string or an array of items', () => {
    const { agent } = setup();
    const run = (input: unknown) => js(agent.run.bind(agent), input);
    expect(run(42)).toThrow('agent.run(): input must be a string or an array of items, got 42');
    expect(run(undefined)).toThrow(/got undefined$/);
    expect(run({ content: 'hi' })).toThrow(/got an object$/);
    expect(run([{ type: 'message', role: 'user' }])).toThrow(
      /^agent\.run\(\): input\[0\] is not an item \(.* at content\)$/,
    );
    expect(js(agent.stream.bind(agent), ['hi'])).toThrow(/^agent\.stream\(\): input\[0\]/);
    // The store refuses a history whose tool result answers no call of its turn: so does run.
    const orphan = [
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'tool_result', callId: 'c-9', name: 'add', output: '3' },
    ];
    expect(run(orphan)).toThrow(
      'agent.run(): input[1] is a tool result answering no tool call of its turn (callId "c-9")',
    );
  });

  it('runs with items as input', async () => {
    const { agent } = setup();
    const result = await agent.run([{ type: 'message', role: 'user', content: 'hello' }]);
    expect(result.output).toBe('hi');
  });

  it('refuses maxTurns that is not a positive integer (NaN no longer means no limit)', () => {
    const { agent } = setup();
    for (const maxTurns of BAD_LIMITS) {
      expect(js(agent.run.bind(agent), 'hi', { maxTurns })).toThrow(
        /^agent\.run\(\): option "maxTurns" must be a positive integer, got /,
      );
      expect(js(agent.stream.bind(agent), 'hi', { maxTurns })).toThrow(TypeError);
      expect(js(agent.resume.bind(agent), 'conv', { maxTurns })).toThrow(
        /^agent\.resume\(\): option "maxTurns"/,
      );
    }
  });

  it('checks the kind of the other run options', () => {
    const { agent } = setup();
    const run = (options: unknown) => js(agent.run.bind(agent), 'hi', options);
    expect(run({ sessionId: 42 })).toThrow(/"sessionId" must be a non-empty string, got 42/);
    expect(run({ sessionId: '' })).toThrow(/"sessionId" must be a non-empty string/);
    expect(run({ userId: {} })).toThrow(/"userId" must be a non-empty string, got an object/);
    expect(run({ signal: 'stop' })).toThrow(/"signal" must be an AbortSignal/);
    expect(run({ metadata: 'x' })).toThrow(/"metadata" must be an object/);
    expect(run({ store: {} })).toThrow(/"store" must implement SessionStore/);
    expect(run(null)).toThrow('agent.run(): options must be an object, got null');
  });

  it('resume needs a session id or a RunState', () => {
    const { agent } = setup();
    const resume = (target: unknown, options?: unknown) =>
      js(agent.resume.bind(agent), target, options);
    expect(resume(42)).toThrow(/^agent\.resume\(\): the target must be a session id or a RunState/);
    expect(resume('')).toThrow(TypeError);
    expect(resume({ runId: 'r', sessionId: 's' })).toThrow(/RunState\.fromJSON/);
    expect(resume('conv', { sessionId: 'conv' })).toThrow(
      /^agent\.resume\(\): unknown option "sessionId"/,
    );
  });

  it('createSession checks its context and options', () => {
    const { agent } = setup();
    expect(js(agent.createSession.bind(agent), { user_id: 'alice' })).toThrow(
      /^agent\.createSession\(\): unknown option "context.user_id" \(did you mean "context.userId"\?\)/,
    );
    expect(js(agent.createSession.bind(agent), {}, { stor: new MemorySessionStore() })).toThrow(
      /did you mean "store"/,
    );
  });

  it("an AgentSession's runs are checked too", async () => {
    const { agent } = setup();
    const session = await agent.createSession({ userId: 'alice' });
    expect(js(session.run.bind(session), 'hi', { maxTurns: 0 })).toThrow(
      /^session\.run\(\): option "maxTurns" must be a positive integer, got 0/,
    );
    expect(js(session.stream.bind(session), 7)).toThrow(/^session\.stream\(\): input/);
    expect(js(session.run.bind(session), 'hi', { sessionId: 'x' })).toThrow(
      /^session\.run\(\): unknown option "sessionId"/,
    );
    await session.close();
  });
});

describe('session actions', () => {
  it('changeBudget refuses unknown names and negative or non-finite limits', () => {
    expect(js(changeBudget, { maxTurns: -1 })).toThrow(
      'changeBudget(): option "budget.maxTurns" must be a non-negative integer, got -1',
    );
    expect(js(changeBudget, { maxTokens: Number.POSITIVE_INFINITY })).toThrow(/"budget.maxTokens"/);
    expect(js(changeBudget, { maxCostUsd: Number.NaN })).toThrow(/"budget.maxCostUsd"/);
    expect(js(changeBudget, { max_cost_usd: 1 })).toThrow(/did you mean "budget.maxCostUsd"/);
    expect(js(changeBudget, null)).toThrow('changeBudget(): option "budget" must be an object');
    expect(() => changeBudget({ maxTurns: 0, maxTokens: 100, maxCostUsd: 0.25 })).not.toThrow();
    expect(() => changeBudget({})).not.toThrow();
  });

  it('sendMessage and continueRun check their input and options', () => {
    expect(js(sendMessage, 42)).toThrow(/^sendMessage\(\): input must be a string/);
    expect(js(sendMessage, 'hi', { maxTurns: 0.5 })).toThrow(/"maxTurns" must be a positive/);
    expect(js(continueRun, { maxTurns: Number.NaN })).toThrow(
      /^continueRun\(\): option "maxTurns"/,
    );
    expect(js(continueRun, { decisions: 'approve' })).toThrow(/"decisions" must be an array/);
    expect(js(continueRun, { desicions: [] })).toThrow(/did you mean "decisions"/);
  });
});

describe('tool() and toolkit()', () => {
  const base = {
    name: 'echo',
    description: 'Echoes',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }: { text: string }) => text,
  };

  it('refuses unknown options with the closest valid one', () => {
    expect(js(tool, { ...base, parameter: base.parameters })).toThrow(
      /^tool\("echo"\): unknown option "parameter" \(did you mean "parameters"\?\)/,
    );
    expect(js(tool, { ...base, needsAproval: true })).toThrow(/did you mean "needsApproval"/);
  });

  it('checks every field', () => {
    expect(js(tool, { ...base, execute: undefined })).toThrow(
      'tool("echo"): option "execute" must be a function, got undefined',
    );
    expect(js(tool, { ...base, description: 5 })).toThrow(/"description" must be a string/);
    expect(js(tool, { ...base, needsApproval: 'yes' })).toThrow(
      /"needsApproval" must be a boolean or a function/,
    );
    expect(js(tool, { ...base, name: 'has space' })).toThrow(/^tool\("has space"\): option "name"/);
    expect(js(tool, 'echo')).toThrow('tool(): options must be an object, got "echo"');
  });

  it('says so when parameters come from zod 3 or from another copy of zod', () => {
    const zod3Object = { _def: { typeName: 'ZodObject' }, shape: () => ({}) };
    expect(js(tool, { ...base, parameters: zod3Object })).toThrow(
      /option "parameters" must be a zod object .*this looks like a zod 3 schema, and agentstate needs zod 4/,
    );
    const otherCopy = { _zod: { def: { type: 'object', shape: {} } } };
    expect(js(tool, { ...base, parameters: otherCopy })).toThrow(/another copy of zod/);
  });

  it('toolkit() needs a name and create', () => {
    expect(js(toolkit, { name: 'db' })).toThrow(
      'toolkit(): option "create" must be a function, got undefined',
    );
    expect(js(toolkit, { name: 'db', create: () => ({ tools: [] }), tools: [] })).toThrow(
      /unknown option "tools"/,
    );
  });
});

describe('new OpenAIModel()', () => {
  const make = (options: unknown) => js((o: never) => new OpenAIModel(o), options);

  it('refuses unknown options with the closest valid one', () => {
    expect(make({ model: 'gpt-4o-mini', apiKey: 'k', baseUrl: 'http://127.0.0.1:1/v1' })).toThrow(
      /^new OpenAIModel\(\): unknown option "baseUrl" \(did you mean "baseURL"\?\)/,
    );
    expect(make({ model: 'gpt-4o-mini', api_key: 'k' })).toThrow(/did you mean "apiKey"/);
  });

  it('checks each option', () => {
    const ok = { model: 'gpt-4o-mini', apiKey: 'k' };
    expect(make({ apiKey: 'k' })).toThrow(/"model" must be a non-empty string, got undefined/);
    expect(make({ ...ok, maxRetries: -1 })).toThrow(/"maxRetries" must be a non-negative integer/);
    expect(make({ ...ok, maxRetries: 1.5 })).toThrow(/"maxRetries"/);
    expect(make({ ...ok, timeoutMs: 0 })).toThrow(/"timeoutMs" must be a positive integer/);
    expect(make({ ...ok, temperature: Number.NaN })).toThrow(/"temperature"/);
    expect(make({ ...ok, client: {} })).toThrow(/"client" must be an OpenAI client/);
    expect(make({ ...ok, apiKey: 42 })).toThrow(/"apiKey" must be a string, got 42/);
    expect(make({ ...ok, maxRetries: 0, timeoutMs: 1000, temperature: 0 })).not.toThrow();
  });
});

describe('new SessionRuntime(), execute(), listSessions(), startScheduler()', () => {
  const make = (options: unknown) => js((o: never) => new SessionRuntime(o), options);

  it('refuses unknown options with the closest valid one, and a missing store or agent', () => {
    const { agent, store } = setup();
    expect(make({ store, agent, clocks: {} })).toThrow(
      /^new SessionRuntime\(\): unknown option "clocks" \(did you mean "clock"\?\)/,
    );
    expect(make({ store, agent, scop: { sessionId: 's' } })).toThrow(/did you mean "scope"/);
    expect(make(undefined)).toThrow(/new SessionRuntime\(\): options must be an object/);
    expect(make({ agent })).toThrow(/option "store" must implement SessionStore/);
    expect(make({ store })).toThrow(/option "agent" must be an Agent or an AgentSession/);
    expect(make({ store, agent: { name: 'a' } })).toThrow(/option "agent"/);
  });

  it('checks the kind of every option', () => {
    const { agent, store } = setup();
    expect(make({ store: {}, agent })).toThrow(/option "store" must implement SessionStore/);
    expect(make({ store, agent, clock: Date })).toThrow(/option "clock" must implement Clock/);
    expect(make({ store, agent, liveRuns: [] })).toThrow(/option "liveRuns" must be a Set/);
    expect(make({ store, agent, cachedSessions: 0 })).toThrow(
      /option "cachedSessions" must be a positive integer, got 0/,
    );
    expect(make({ store, agent, liveSessions: -1 })).toThrow(
      /option "liveSessions" must be a non-negative integer, got -1/,
    );
    expect(make({ store, agent, liveSessions: 0 })).not.toThrow();
    expect(make({ store, agent, scope: 's' })).toThrow(/option "scope" must be an object/);
    expect(make({ store, agent, scope: { sessionId: '' } })).toThrow(
      /option "scope.sessionId" must be a non-empty string/,
    );
    expect(make({ store, agent, scope: { sessionId: 's', user_id: 'a' } })).toThrow(
      /unknown option "scope.user_id" \(did you mean "scope.userId"\?\)/,
    );
    expect(make({ store, agent, scope: { sessionId: 's', userId: 7 } })).toThrow(
      /option "scope.userId" must be a string, got 7/,
    );
    expect(make({ store, agent, scope: { sessionId: 's', userId: 'a' } })).not.toThrow();
  });

  it('execute() needs a session id or key and an action, at the call', async () => {
    const { agent, store, model } = setup();
    const runtime = new SessionRuntime({ store, agent });
    const execute = (...args: unknown[]) => js(runtime.execute.bind(runtime), ...args);
    expect(execute('', sendMessage('hi'))).toThrow(
      /^runtime.execute\(\): the target must be a session id or a \{ sessionId, userId \} key, got ""/,
    );
    expect(execute(42, sendMessage('hi'))).toThrow(/the target must be a session id/);
    expect(execute({ session_id: 's' }, sendMessage('hi'))).toThrow(
      /unknown option "target.session_id" \(did you mean "target.sessionId"\?\)/,
    );
    expect(execute({ sessionId: 's', userId: 1 }, sendMessage('hi'))).toThrow(
      /"target.userId" must be a string/,
    );
    expect(execute('s', 'sendMessage')).toThrow(/the action must be a session action/);
    expect(execute('s', { name: 'x' })).toThrow(/the action must be a session action/);
    // Nothing ran and nothing was stored.
    expect(model.calls).toHaveLength(0);
    expect((await store.list()).sessions).toEqual([]);
    await expect(runtime.execute('s', sendMessage('hi'))).resolves.toMatchObject({ output: 'hi' });
  });

  it('listSessions() checks its query: names, status, a positive integer limit, strings', () => {
    const { agent, store } = setup();
    const runtime = new SessionRuntime({ store, agent });
    const list = (query: unknown) => js(runtime.listSessions.bind(runtime), query);
    expect(list({ user_id: 'alice' })).toThrow(
      /^runtime.listSessions\(\): unknown option "user_id" \(did you mean "userId"\?\)/,
    );
    for (const limit of BAD_LIMITS) {
      expect(list({ userId: 'alice', limit })).toThrow(/option "limit" must be a positive integer/);
    }
    expect(list({ status: 'paused' })).toThrow(
      /option "status" must be one of active, suspended, completed, failed, deleted, got "paused"/,
    );
    expect(list({ userId: 7 })).toThrow(/option "userId" must be a string, got 7/);
    expect(list({ cursor: 3 })).toThrow(/option "cursor" must be a string, got 3/);
    expect(list('alice')).toThrow(/options must be an object/);
    expect(list({ userId: 'alice', status: 'active', limit: 5, cursor: 'a' })).not.toThrow();
  });

  it('startScheduler() checks its options (the agent adds store)', () => {
    const { agent, store } = setup();
    const runtime = new SessionRuntime({ store, agent });
    const start = (options: unknown) => js(runtime.startScheduler.bind(runtime), options);
    expect(start({ onErr: () => undefined })).toThrow(
      /^runtime.startScheduler\(\): unknown option "onErr" \(did you mean "onError"\?\)/,
    );
    expect(start({ store })).toThrow(/unknown option "store"/);
    for (const value of BAD_LIMITS) {
      expect(start({ retryDelayMs: value })).toThrow(/"retryDelayMs" must be a positive integer/);
      expect(start({ batchSize: value })).toThrow(/"batchSize" must be a positive integer/);
    }
    expect(start({ onContinued: 'log' })).toThrow(/"onContinued" must be a function/);
    const agentStart = (options: unknown) => js(agent.startScheduler.bind(agent), options);
    expect(agentStart({ store: {} })).toThrow(
      /^agent.startScheduler\(\): option "store" must implement SessionStore/,
    );
    expect(agentStart({ stor: store })).toThrow(/did you mean "store"/);
  });
});

describe('new LevelSessionStore() and LevelSessionStore.open()', () => {
  const make = (options: unknown) => js((o: never) => new LevelSessionStore(o), options);
  const open = (options: unknown) => js((o: never) => LevelSessionStore.open(o), options);

  it('refuses unknown options with the closest valid one, before opening anything', () => {
    expect(make({ paht: './x' })).toThrow(
      /^new LevelSessionStore\(\): unknown option "paht" \(did you mean "path"\?\)/,
    );
    expect(open({ location: './x' })).toThrow(/^LevelSessionStore.open\(\): unknown option/);
    expect(make('./data')).toThrow(/options must be an object, got "\.\/data"/);
  });

  it('checks each option', () => {
    expect(make({ path: '' })).toThrow(/option "path" must be a non-empty string, got ""/);
    expect(open({ path: 42 })).toThrow(/option "path" must be a non-empty string, got 42/);
    expect(make({ path: './x', migrations: {} })).toThrow(/option "migrations" must be an array/);
    expect(make({ path: './x', migrations: [{ from: 1 }] })).toThrow(/option "migrations"/);
    expect(make({ path: './x', onBatchOp: true })).toThrow(/option "onBatchOp" must be a function/);
  });
});
