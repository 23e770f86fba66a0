import { afterEach, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, OutputValidationError } from '../../src/index.js';
import { FakeClock, MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { killLiveWorkers } from '../helpers/crash-driver.js';
import { CRASH_SESSION } from '../helpers/crash-point.js';
import { append, crashedFolder } from '../helpers/crashed-folder.js';
import { failingAgent, pausingAgent, runInFlight } from '../helpers/run-status-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 26 (operating sessions): why a run failed, what a paused run used so far, and whether
 * a run in flight still has a live process are read from the session view, not guessed.
 */
const temps = new TempStores();
afterEach(async () => {
  killLiveWorkers();
  await temps.cleanupAll();
});

const key = { sessionId: 'seen', userId: 'alice' };
const opts = { sessionId: key.sessionId, userId: key.userId };

/**
 * The crash worker's session, its process SIGKILLed in the run's first tool call; the folder
 * opened here with a runtime that can resume it.
 */
async function crashedInAnotherProcess() {
  const dbDir = await crashedFolder(await temps.folder());
  const level = await LevelSessionStore.open({ path: dbDir });
  temps.defer(() => level.close());
  const resumer = new Agent({
    name: 'crash',
    model: new ScriptedModel(() => ({ text: 'resumed' })),
    tools: [append],
    store: level,
  });
  return { runtime: resumer.runtimeFor(level) };
}

describe('the session view says why, how much and whether anyone runs it', () => {
  it('a failed run: its status and typed error; the session stays active and takes the next message', async () => {
    const store = new MemorySessionStore();
    const agent = failingAgent(store, '{"city":"Oslo"}');
    await expect(agent.run('weather?', opts)).rejects.toBeInstanceOf(OutputValidationError);
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.status).toBe('active');
    expect(view.runStatus).toMatchObject({
      status: 'failed',
      error: { code: 'OUTPUT_VALIDATION', message: expect.stringContaining('JSON') as string },
    });
    // a failed run does not fail the conversation: the next message starts a new run
    await expect(agent.run('again?', opts)).resolves.toMatchObject({ output: { city: 'Oslo' } });
    expect((await agent.runtimeFor(store).getSession(key)).runStatus?.status).toBe('completed');
  });

  it('a run paused for approval shows the tokens it used so far and its pending call', async () => {
    const store = new MemorySessionStore();
    const agent = pausingAgent(store);
    const paused = await agent.run('go', opts);
    expect(paused.interruptionReason).toBe('approval');
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.usage).toMatchObject({ inputTokens: 0, outputTokens: 0 }); // ended runs only
    expect(view.usageSoFar).toMatchObject({ turns: 1, inputTokens: 100, outputTokens: 20 });
    expect(view.runStatus).toMatchObject({
      runId: paused.id,
      status: 'awaitingApproval',
      interruption: 'approval',
      pendingApprovals: 1,
      usage: { inputTokens: 100, outputTokens: 20 },
    });
  });

  it('a run in flight is running while its process lives; SIGKILLed it is crashed', async () => {
    // in this process: running, from the runtime's own runs and the store's lease
    const { store } = await temps.open();
    const live = await runInFlight(store, key);
    for (const runtime of [
      live.agent.runtimeFor(store),
      new Agent({ name: 'peer', model: new ScriptedModel([]), store }).runtimeFor(store),
    ]) {
      expect((await runtime.getSession(key)).runStatus?.status).toBe('running');
    }
    await live.finish();
    await store.close();

    // another process, killed in its run's first tool call: crashed
    const { runtime } = await crashedInAnotherProcess();
    const crashed = await runtime.getSession(CRASH_SESSION);
    expect(crashed.runStatus).toMatchObject({ status: 'crashed', turns: 2 });
    expect(crashed.usageSoFar.turns).toBe(crashed.usage.turns + 2);
  }, 60_000);

  it('another owner’s run is running while its lease lives and crashed once it expired unrenewed (the lease decides, as on PostgreSQL)', async () => {
    const storeClock = new FakeClock();
    const store = new MemorySessionStore({ clock: storeClock });
    // owner a's clock never moves: it renews nothing, as a process that hangs or died
    const a = await runInFlight(store, key, {
      clock: new FakeClock(),
      lease: { owner: 'a', ttlMs: 10_000 },
    });
    const b = new Agent({
      name: 'b',
      model: new ScriptedModel([]),
      store,
      lease: { owner: 'b', ttlMs: 10_000 },
    }).runtimeFor(store);
    expect((await b.getSession(key)).runStatus?.status).toBe('running');
    storeClock.advance(9_999);
    expect((await b.getSession(key)).runStatus?.status).toBe('running');
    storeClock.advance(1);
    expect((await b.getSession(key)).runStatus?.status).toBe('crashed');
    await a.finish();
    expect((await b.getSession(key)).runStatus?.status).toBe('completed');
  });

  it('recover() on LevelDB finds the run a SIGKILLed process left in flight and resumes it, once', async () => {
    const { runtime } = await crashedInAnotherProcess();
    const recovered = await runtime.recover({ olderThan: 0, userId: CRASH_SESSION.userId });
    expect(recovered).toEqual([
      { key: CRASH_SESSION, result: expect.objectContaining({ output: 'resumed' }) as unknown },
    ]);
    expect((await runtime.getSession(CRASH_SESSION)).runStatus?.status).toBe('completed');
    expect(await runtime.recover({ olderThan: 0, userId: CRASH_SESSION.userId })).toEqual([]);
  }, 60_000);
});
