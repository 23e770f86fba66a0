import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  SessionRuntime,
  sendMessage,
  type Durability,
  type SessionStore,
} from '../../src/index.js';
import { type SessionCommit } from '../../src/store.js';
import { FakeClock, MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import {
  SCENARIO_KEY,
  playScenario,
  scenarioAgent,
  storedScenario,
} from '../helpers/durability-scenario.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const MODES: Durability[] = ['step', 'tools', 'run'];

/** Counts the store's saves (each one atomic batch) and keeps what each carried. */
function countSaves(store: SessionStore): SessionCommit[] {
  const saves: SessionCommit[] = [];
  const save = store.save.bind(store);
  store.save = (commit) => {
    saves.push(commit);
    return save(commit);
  };
  return saves;
}

/** Plays the scenario in `mode` on a fresh LevelDB store. */
async function playIn(mode: Durability | undefined) {
  const { store } = await temps.open();
  const saves = countSaves(store);
  const clock = new FakeClock();
  const { agent, executions } = scenarioAgent(store, clock, mode);
  const inspected: string[] = [];
  agent.runtimeFor(store).on('Inspection', ({ event }) => {
    // the session actors' ids (`x:<n>`) count every actor this process made: not compared
    if (event.type === '@xstate.actor')
      inspected.push(((event.actorRef as { id?: string }).id ?? '').replace(/^x:\d+$/, 'x'));
  });
  const results = await playScenario(agent);
  return { stored: await storedScenario(agent, store, results), saves, executions, inspected };
}

describe('durability modes', () => {
  it('a run not killed ends with the same state, history, journal, audit and totals in every mode; fewer saves each mode down', async () => {
    const reference = await playIn(undefined);
    const played = {
      step: await playIn('step'),
      tools: await playIn('tools'),
      run: await playIn('run'),
    };
    for (const mode of MODES) {
      const { stored, executions, inspected } = played[mode];
      expect(stored, mode).toEqual(reference.stored);
      // each tool ran once, with its call id as key; every step's actor was seen by inspection
      expect(executions, mode).toEqual(reference.executions);
      expect(executions.add).toBe(4);
      expect(executions.send).toBe(1);
      expect(inspected, mode).toEqual(reference.inspected);
    }
    expect(played.step.saves.length).toBe(reference.saves.length);
    expect(played.tools.saves.length).toBeLessThan(played.step.saves.length);
    expect(played.run.saves.length).toBeLessThan(played.tools.saves.length);
    // 'run': one save per pause or end (5 runs, one paused once) and nothing between
    expect(played.run.saves.length).toBe(6);
    // every journal entry and history item was written exactly once, in every mode
    for (const mode of MODES) {
      const { saves } = played[mode];
      const journal = saves.flatMap((s) => s.journal.map((e) => `${e.runId}:${e.step}`));
      expect(new Set(journal).size, mode).toBe(journal.length);
      expect(journal.length, mode).toBe(reference.saves.flatMap((s) => s.journal).length);
      expect(saves.flatMap((s) => s.items).length, mode).toBe(
        reference.saves.flatMap((s) => s.items).length,
      );
    }
  });

  it("'tools': every tool call is saved before it starts and right after it returns", async () => {
    const store = new MemorySessionStore();
    const saves = countSaves(store);
    const { agent, executions } = scenarioAgent(store, new FakeClock(), 'tools');
    let savedBeforeTool = 0;
    const save = store.save.bind(store);
    store.save = (commit) => {
      savedBeforeTool = executions.add;
      return save(commit);
    };
    await agent.run('add', SCENARIO_KEY);
    expect(executions.add).toBe(1);
    // start+model (before the tool), the tool's result, the end
    expect(saves.map((s) => s.journal.map((e) => e.kind))).toEqual([
      ['model'],
      ['tool'],
      ['model'],
    ]);
    expect(savedBeforeTool).toBe(1);
  });

  it("'run': nothing is saved until the run pauses or ends; the pause is saved", async () => {
    const store = new MemorySessionStore();
    const saves = countSaves(store);
    const { agent } = scenarioAgent(store, new FakeClock(), 'run');
    await agent.run('add', SCENARIO_KEY);
    expect(saves.map((s) => s.journal.map((e) => e.kind))).toEqual([['model', 'tool', 'model']]);
    const paused = await agent.run('send', SCENARIO_KEY);
    expect(paused.interruptionReason).toBe('approval');
    expect(saves).toHaveLength(2);
    const view = await agent.runtimeFor(store).getSession(SCENARIO_KEY);
    expect(view.run?.state).toBe('awaitingApproval');
  });

  it('precedence: the call, then the SessionRuntime, then the agent, then step', async () => {
    const saved = async (
      agentMode: Durability | undefined,
      runtimeMode: Durability | undefined,
      callMode: Durability | undefined,
    ) => {
      const store = new MemorySessionStore();
      const saves = countSaves(store);
      const { agent } = scenarioAgent(store, new FakeClock(), agentMode);
      const runtime = new SessionRuntime({
        store,
        agent,
        ...(runtimeMode ? { durability: runtimeMode } : {}),
      });
      await runtime.execute(
        SCENARIO_KEY,
        sendMessage('add', callMode ? { durability: callMode } : {}),
      );
      return saves.length;
    };
    const step = await saved(undefined, undefined, undefined);
    const run = await saved('run', undefined, undefined);
    expect(run).toBeLessThan(step);
    expect(await saved('run', 'step', undefined)).toBe(step);
    expect(await saved('step', 'run', undefined)).toBe(run);
    expect(await saved('run', 'run', 'step')).toBe(step);
    expect(await saved(undefined, 'step', 'run')).toBe(run);

    // agent.run / agent.resume take it per call too
    const store = new MemorySessionStore();
    const saves = countSaves(store);
    const { agent } = scenarioAgent(store, new FakeClock(), 'step');
    await agent.run('add', { ...SCENARIO_KEY, durability: 'run' });
    expect(saves).toHaveLength(1);
  });

  it('sub-agent runs follow their parent run', async () => {
    const store = new MemorySessionStore();
    const saves = countSaves(store);
    const { agent, executions } = scenarioAgent(store, new FakeClock(), 'run');
    const result = await agent.run('ask', SCENARIO_KEY);
    expect(result.subRuns).toHaveLength(1);
    expect(executions.add).toBe(1);
    // the child's model, tool and model steps and the parent's three: all in the one save
    expect(saves).toHaveLength(1);
    expect(saves[0]!.journal).toHaveLength(6);
  });

  it('a bad durability is a TypeError naming the option, at every call that takes one', async () => {
    const model = new ScriptedModel([], { recordCalls: true });
    const store = new MemorySessionStore();
    const expected = /option "durability" must be 'step', 'tools' or 'run', got "sometimes"/;
    const bad = { durability: 'sometimes' } as unknown as { durability: Durability };
    expect(() => new Agent({ name: 'a', model, ...bad })).toThrow(TypeError);
    expect(() => new Agent({ name: 'a', model, ...bad })).toThrow(expected);
    const agent = new Agent({ name: 'a', model, store });
    expect(() => new SessionRuntime({ store, agent, ...bad })).toThrow(expected);
    expect(() => agent.run('hi', { sessionId: 's', ...bad })).toThrow(expected);
    expect(() => agent.stream('hi', { sessionId: 's', ...bad })).toThrow(expected);
    expect(() => agent.resume('s', bad)).toThrow(expected);
    expect(() => sendMessage('hi', bad)).toThrow(expected);
    const session = await agent.createSession({ sessionId: 's2' }, { store });
    expect(() => session.run('hi', bad)).toThrow(expected);
    expect(() => new Agent({ name: 'a', model, durability: 'run' })).not.toThrow();
    expect(await store.list()).toEqual({ sessions: [], nextCursor: undefined });
  });
});
