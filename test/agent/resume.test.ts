import { afterEach, describe, expect, it } from 'vitest';
import {
  LevelSessionStore,
  NothingToResumeError,
  SessionNotFoundError,
  changeBudget,
} from '../../src/index.js';
import { describeSession } from '../../src/runs/session-view.js';
import { ScriptedModel } from '../../src/testing.js';
import { approvalAgent, approvalModel, callTools } from '../helpers/approval-agent.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'resume-me', userId: 'alice' };
const opts = { sessionId: key.sessionId, userId: key.userId };
const lookup = (word: string) => ({ name: 'lookup', arguments: { word } });
const email = { name: 'send_email', arguments: { to: 'bob@example.com', body: 'hi' } };

describe('agent.resume(sessionId)', () => {
  it('raises NothingToResumeError on an idle session and leaves the stored version unchanged', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    await agent.run(callTools(lookup('cat')), opts);
    const before = await store.load(key);

    const error = await agent
      .resume(key.sessionId, { userId: key.userId, store })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NothingToResumeError);
    expect(error).toMatchObject({ code: 'NOTHING_TO_RESUME', sessionId: key.sessionId });
    expect((error as Error).message).toMatch(/active\.idle/);
    const after = await store.load(key);
    expect(after.version).toBe(before.version);
    expect(after.snapshot).toEqual(before.snapshot);
  });

  it('treats a session of another user (or none at all) as not found', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    await agent.run(callTools(email), opts);
    await expect(agent.resume(key.sessionId, { userId: 'mallory', store })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(agent.resume('missing', { userId: key.userId, store })).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
  });

  it('returns a run still waiting for approval when resumed without decisions', async () => {
    const { store } = await temps.open();
    const { agent, counters } = approvalAgent(store);
    const paused = await agent.run(callTools(email), opts);

    const again = await agent.resume(key.sessionId, { userId: key.userId, store });
    expect(again).toMatchObject({
      id: paused.id,
      interrupted: true,
      interruptionReason: 'approval',
    });
    expect(again.interruptions).toEqual(paused.interruptions);
    expect(counters.executed).toEqual({});

    const done = await agent.resume(again.state.approve('call_1_0'));
    expect(done.output).toBe('Done. send_email: sent to bob@example.com');
  });

  it('continues a run interrupted by its budget once the budget is raised', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    const runtime = agent.runtimeFor(store);
    await agent.run(callTools(lookup('one')), opts); // two turns
    await runtime.execute(key, changeBudget({ maxTurns: 3 }));

    const stopped = await agent.run(callTools(lookup('two')), opts);
    expect(stopped).toMatchObject({ interrupted: true, interruptionReason: 'budget', turns: 1 });
    expect((await runtime.getSession(key)).run?.state).toBe('interrupted');

    await runtime.execute(key, changeBudget({ maxTurns: 10 }));
    const done = await agent.resume(key.sessionId, { userId: key.userId, store });
    expect(done).toMatchObject({
      id: stopped.id,
      interrupted: false,
      output: 'Done. lookup: two: found',
      turns: 2,
    });
    expect((await runtime.getSession(key)).usage.turns).toBe(4);
  });

  it('continues a crashed run in a fresh Agent: journaled steps replay, the in-flight one runs again', async () => {
    const temp = await temps.open();
    let crashed = false;
    await temp.store.close();
    const store = await LevelSessionStore.open({
      path: temp.path,
      onBatchOp: () => {
        if (crashed) throw new Error('power cut');
      },
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const script = approvalModel();
    const blocking = new ScriptedModel(
      async (request, index) => {
        if (index === 1) await gate;
        return script
          .generate(request)
          .then((r) => (r.text ? { text: r.text } : { toolCalls: r.toolCalls }));
      },
      { recordCalls: true },
    );
    const first = approvalAgent(store, { model: blocking });
    first.agent.runtimeFor(store).on('SessionSaved', ({ record }) => {
      // The tool call is journaled and the second model call is in flight: cut the power.
      if (describeSession(record).run?.state === 'modelCall' && record.historyLength === 3) {
        crashed = true;
        release();
      }
    });
    await expect(first.agent.run(callTools(lookup('crash')), opts)).rejects.toMatchObject({
      code: 'SESSION_SAVE_FAILED',
    });
    expect(first.counters.executed).toEqual({ lookup: 1 });
    await store.close();

    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    expect(describeSession(await reopened.load(key)).run?.state).toBe('modelCall');
    const second = approvalAgent(reopened);
    const done = await second.agent.resume(key.sessionId, { userId: key.userId });
    expect(done.output).toBe('Done. lookup: crash: found');
    expect(second.counters.executed).toEqual({});
    expect(second.model.calls).toHaveLength(1);
    expect(done.usage.inputTokens).toBe(20);
    const history = await reopened.readHistory(key);
    expect(history.filter((i) => i.type === 'tool_result')).toHaveLength(1);
    expect(describeSession(await reopened.load(key))).toMatchObject({
      state: 'active.idle',
      run: undefined,
    });
  });
});
