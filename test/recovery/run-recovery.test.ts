import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  OpenAIModel,
  RunInProgressError,
  RunPausedError,
  tool,
  type Item,
  type SessionStore,
} from '../../src/index.js';
import { describeSession } from '../../src/runs/session-view.js';
import { ScriptedModel } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { deferred } from '../helpers/async.js';
import { chatCompletionsServerPerTest, completion } from '../helpers/chat-completions-server.js';
import { modelFailure } from '../helpers/model-failure.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 9, points 1 and 2: every stopped run can go on; one live run per session. */
const server = chatCompletionsServerPerTest();
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'recover', userId: 'alice' };
const opts = { sessionId: key.sessionId, userId: key.userId };
const lookup = (word: string) => ({ name: 'lookup', arguments: { word } });
const email = { name: 'send_email', arguments: { to: 'bob@example.com', body: 'hi' } };

const openai = (maxRetries: number) =>
  new OpenAIModel({ model: 'gpt-4o-mini', apiKey: 'k-test', baseURL: server.baseURL, maxRetries });
const userTexts = (items: Item[]) =>
  items.flatMap((i) => (i.type === 'message' && i.role === 'user' ? [i.content] : []));
/** Tool calls in `items` without a result (a chat API refuses such a history). */
const unanswered = (items: Item[]) =>
  items.flatMap((i) =>
    i.type === 'tool_call' && !items.some((r) => r.type === 'tool_result' && r.callId === i.callId)
      ? [i.callId]
      : [],
  );
const failing = (status: number, message: string, requestId: string) => ({
  status,
  error: message,
  headers: { 'x-request-id': requestId, 'retry-after-ms': '1' },
});

describe('a failed model call interrupts the run; resume retries it', () => {
  it('a 500 after the SDK retries: reason error with the facts; resume completes; one user message', async () => {
    const { store } = await temps.open();
    server.enqueue(failing(500, 'down', 'req_1'), failing(500, 'still down', 'req_2'));
    const agent = new Agent({ name: 'a', model: openai(1), store });

    const stopped = await agent.run('hello', opts);
    const error = await modelFailure(Promise.resolve(stopped));
    expect(error).toMatchObject({
      code: 'MODEL_ERROR',
      status: 500,
      requestId: 'req_2',
      retryable: true,
      runId: stopped.id,
    });
    expect(error.message).toContain('still down');
    expect(server.requests).toHaveLength(2); // the SDK's own retry happened first
    expect(stopped.state.data.error).toMatchObject({ status: 500, requestId: 'req_2' });
    expect(describeSession(await store.load(key)).run).toMatchObject({
      state: 'interrupted',
      context: { interruption: 'error', error: { status: 500 } },
    });

    server.enqueue({ json: completion({ content: 'recovered' }) });
    const done = await agent.resume(key.sessionId, { userId: key.userId });
    expect(done).toMatchObject({ id: stopped.id, output: 'recovered', interrupted: false });
    expect(done.error).toBeUndefined();
    // The retry sent the same conversation: the user's message once.
    expect(server.body(2).messages).toEqual(server.body(1).messages);
    expect(userTexts(await store.readHistory(key))).toEqual(['hello']);
    const journal = await store.readRunJournal(key, stopped.id);
    expect(journal.map((e) => [e.step, e.kind])).toEqual([[0, 'model']]);
  });

  it('a 429: resume in a new store instance reopening the folder', async () => {
    const temp = await temps.open();
    server.enqueue(failing(429, 'Rate limit reached', 'req_429'));
    const first = await new Agent({ name: 'a', model: openai(0), store: temp.store }).run(
      'hello',
      opts,
    );
    expect(await modelFailure(Promise.resolve(first))).toMatchObject({
      status: 429,
      requestId: 'req_429',
      retryable: true,
    });
    await temp.store.close();

    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    server.enqueue({ json: completion({ content: 'later' }) });
    const agent = new Agent({ name: 'a', model: openai(0), store: reopened });
    const done = await agent.resume(key.sessionId, { userId: key.userId });
    expect(done).toMatchObject({ id: first.id, output: 'later', interrupted: false });
    expect(userTexts(await reopened.readHistory(key))).toEqual(['hello']);
    const view = await agent.runtimeFor(reopened).getSession(key);
    expect(view).toMatchObject({ state: 'active.idle', lastRun: { status: 'completed' } });
  });
});

/** The stored record and history, to show a refused action changed nothing. */
async function storedState(store: SessionStore) {
  return { record: await store.load(key), history: await store.readHistory(key) };
}

describe('a paused run refuses messages with RunPausedError; cancel ends it', () => {
  it('sendMessage to a run waiting for an approval or interrupted by an error changes nothing', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    const paused = await agent.run(callTools(email), opts);
    expect(paused.interruptionReason).toBe('approval');
    const before = await storedState(store);
    const error = await agent.run('anyone there?', opts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunPausedError);
    expect(error).toMatchObject({ code: 'RUN_PAUSED', sessionId: key.sessionId, runId: paused.id });
    expect((error as Error).message).toMatch(/waiting for an approval.*resume.*cancel/);
    expect(await storedState(store)).toEqual(before);

    const broken = new Agent({
      name: 'b',
      model: new ScriptedModel([{ error: 'upstream 503' }], { recordCalls: true }),
      store,
    });
    const other = { sessionId: 'other', userId: 'alice' };
    await modelFailure(broken.run('hi', other));
    const record = await store.load(other);
    await expect(broken.run('hi again', other)).rejects.toThrow(/interrupted: error.*resume/);
    expect(await store.load(other)).toEqual(record);
  });

  it('cancel of a run paused for approval: cancelled, the tool never runs, the next message works', async () => {
    const { store } = await temps.open();
    const { agent, counters } = approvalAgent(store);
    const paused = await agent.run(callTools(email), opts);
    await agent.cancel(key.sessionId, { userId: key.userId });
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view).toMatchObject({
      state: 'active.idle',
      run: undefined,
      lastRun: { runId: paused.id, status: 'cancelled' },
    });
    const history = await store.readHistory(key);
    expect(unanswered(history)).toEqual([]);
    expect(history.at(-1)).toMatchObject({
      type: 'tool_result',
      name: 'send_email',
      isError: true,
      output: expect.stringContaining('cancelled') as unknown,
    });
    const next = await agent.run(callTools(lookup('cat')), opts);
    expect(next.output).toBe('Done. lookup: cat: found');
    expect(counters.executed).toEqual({ lookup: 1 });
    // nothing left to cancel: a typed refusal
    await expect(agent.cancel(key.sessionId, { userId: key.userId })).rejects.toMatchObject({
      code: 'INVALID_SESSION_TRANSITION',
    });
  });

  it('cancel of a run interrupted by its budget, and of one interrupted by a model error', async () => {
    const { store } = await temps.open();
    const { agent: capped } = approvalAgent(store, { userBudget: { maxTurns: 1 } });
    const stopped = await capped.run(callTools(lookup('one')), opts);
    expect(stopped).toMatchObject({ interrupted: true, interruptionReason: 'budget' });
    await capped.cancel(key.sessionId, { userId: key.userId });
    expect((await capped.runtimeFor(store).getSession(key)).lastRun?.status).toBe('cancelled');
    const { agent } = approvalAgent(store); // no user budget
    expect((await agent.run(callTools(lookup('two')), opts)).output).toBe(
      'Done. lookup: two: found',
    );

    const broken = new Agent({
      name: 'b',
      model: new ScriptedModel([{ error: 'x' }], { recordCalls: true }),
      store,
    });
    const other = { sessionId: 'other', userId: 'alice' };
    await modelFailure(broken.run('hi', other));
    await broken.cancel(other.sessionId, { userId: other.userId });
    const fixed = new Agent({
      name: 'b',
      model: new ScriptedModel([{ text: 'ok' }], { recordCalls: true }),
      store,
    });
    expect((await fixed.run('hi again', other)).output).toBe('ok');
    const history = await store.readHistory(other);
    expect(userTexts(history)).toEqual(['hi', 'hi again']);
  });

  it('cancel of a crashed run (tool in flight): the tool does not run again', async () => {
    const temp = await temps.open();
    await temp.store.close();
    let crashed = false;
    const store = await LevelSessionStore.open({
      path: temp.path,
      onBatchOp: () => {
        if (crashed) throw new Error('power cut');
      },
    });
    const first = approvalAgent(store);
    first.agent.runtimeFor(store).on('SessionSaved', ({ record }) => {
      // The tool call is about to run: its result will not be saved.
      if (describeSession(record).run?.state === 'tools') crashed = true;
    });
    await expect(first.agent.run(callTools(lookup('crash')), opts)).rejects.toMatchObject({
      code: 'SESSION_SAVE_FAILED',
    });
    expect(first.counters.executed).toEqual({ lookup: 1 });
    await store.close();

    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    expect(describeSession(await reopened.load(key)).run?.state).toBe('tools');
    const second = approvalAgent(reopened);
    const refused = await second.agent.run('hello?', opts).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'RUN_PAUSED' });
    expect((refused as Error).message).toContain('in flight');
    await second.agent.cancel(key.sessionId, { userId: key.userId });
    expect(second.counters.executed).toEqual({});
    expect(second.model.calls).toHaveLength(0);
    expect(unanswered(await reopened.readHistory(key))).toEqual([]);
    expect(describeSession(await reopened.load(key))).toMatchObject({
      state: 'active.idle',
      lastRun: { status: 'cancelled' },
    });
    expect((await second.agent.run(callTools(lookup('dog')), opts)).output).toBe(
      'Done. lookup: dog: found',
    );
    expect(second.counters.executed).toEqual({ lookup: 1 });
  });
});

/** An agent whose one tool counts its executions and blocks until `gate` resolves. */
function blockingAgent(store: SessionStore) {
  const gate = deferred();
  const started = deferred();
  const counts = { executions: 0 };
  const slow = tool({
    name: 'slow',
    description: 'Takes its time',
    parameters: z.object({}),
    execute: async () => {
      counts.executions++;
      started.resolve();
      await gate.promise;
      return 'finally';
    },
  });
  const model = new ScriptedModel(
    [{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'done' }, { text: 'second' }],
    { recordCalls: true },
  );
  const agent = new Agent({ name: 'a', model, tools: [slow], store });
  return { agent, model, gate, started, counts };
}

async function expectInProgress(attempt: () => Promise<unknown>): Promise<void> {
  const error = await attempt().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RunInProgressError);
  expect(error).toMatchObject({ code: 'RUN_IN_PROGRESS', sessionId: key.sessionId });
}

describe('one live run per session in a process', () => {
  it('resume and run while the run executes raise RunInProgressError before any tool runs', async () => {
    const { store } = await temps.open();
    const { agent, model, gate, started, counts } = blockingAgent(store);
    const running = agent.run('go', opts);
    await started.promise;

    await expectInProgress(() => agent.resume(key.sessionId, { userId: key.userId }));
    await expectInProgress(() => agent.run('again', opts));
    // (a cancel stops it instead: test/actions/cancel-anywhere.test.ts)
    expect(counts.executions).toBe(1);
    expect(model.calls).toHaveLength(1);

    gate.resolve();
    expect((await running).output).toBe('done');
    expect(counts.executions).toBe(1);
    // Released once the run returned.
    expect((await agent.run('later', opts)).output).toBe('second');
    expect(model.calls.map((c) => c.items.length)).toEqual([1, 3, 5]);
  });

  it("an AgentSession's run and the agent's resume share the guard", async () => {
    const { store } = await temps.open();
    const { agent, gate, started, counts } = blockingAgent(store);
    const session = await agent.createSession(key, { store });
    const running = session.run('go');
    await started.promise;
    await expectInProgress(() => agent.resume(key.sessionId, { userId: key.userId }));
    await expectInProgress(() => session.run('again'));
    gate.resolve();
    expect((await running).output).toBe('done');
    expect(counts.executions).toBe(1);
    await session.close();
  });
});
