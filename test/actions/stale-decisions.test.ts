import { contentText } from '../../src/items/item.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AlreadyDecidedError,
  RunState,
  StaleDecisionError,
  UnknownCallError,
  changeBudget,
  continueRun,
  type SessionStore,
} from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 9, point 8: decisions are never dropped or applied to another call. */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'ops', userId: 'alice' };
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });

/**
 * Like `approvalModel`, but its call ids are `c0`, `c1`, ... in every turn of every run: a
 * decision on `c0` of one run would fit `c0` of the next by id alone.
 */
function reusedIdModel(): ScriptedModel {
  return new ScriptedModel((request): ScriptedResponse => {
    if (request.items.at(-1)?.type === 'tool_result') return { text: 'done' };
    const last = request.items.at(-1);
    const calls = JSON.parse(last?.type === 'message' ? contentText(last.content) : '[]') as {
      name: string;
      arguments: Record<string, unknown>;
    }[];
    return { toolCalls: calls.map((c, i) => ({ ...c, callId: `c${i}` })) };
  });
}

async function setup() {
  const { store } = await temps.open();
  const { agent, counters } = approvalAgent(store, { model: reusedIdModel() });
  return { store, agent, counters, runtime: agent.runtimeFor(store) };
}

/** Runs `fn`, expects it to reject with `type`, and checks the store did not change. */
async function refused(
  store: SessionStore & Parameters<typeof dumpBackend>[0],
  type: typeof StaleDecisionError | typeof UnknownCallError | typeof AlreadyDecidedError,
  fn: () => Promise<unknown>,
): Promise<Error> {
  const before = await dumpBackend(store);
  const error = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  expect(await dumpBackend(store)).toEqual(before);
  return error as Error;
}

describe('stale decisions are refused', () => {
  it("a decision made on another run is refused, not applied to this run's call of the same id", async () => {
    const { store, agent, counters, runtime } = await setup();
    const first = await agent.run(callTools(email('bob')), key);
    const saved = JSON.stringify(first.state);
    const done = await agent.resume(RunState.fromJSON(saved).approve('c0'));
    expect(done.output).toBe('done');
    const second = await agent.run(callTools(email('eve')), key);
    expect(second.interruptions.map((i) => i.callId)).toEqual(['c0']);
    expect(counters.executed).toEqual({ send_email: 1 });

    const error = await refused(store, StaleDecisionError, () =>
      agent.resume(RunState.fromJSON(saved).approve('c0')),
    );
    expect(error).toMatchObject({ code: 'STALE_DECISION', runId: second.id });
    expect(error.message).toContain(first.id);
    expect(counters.executed).toEqual({ send_email: 1 }); // eve got nothing
    expect((await runtime.getSession(key)).run?.state).toBe('awaitingApproval');
  });

  it('a decision whose call fingerprint differs from the pending call is refused', async () => {
    const { store, agent, counters } = await setup();
    const first = await agent.run(callTools(email('bob')), key);
    const bobs = first.interruptions[0]!.fingerprint;
    await agent.resume(first.state.reject('c0'));
    const second = await agent.run(callTools(email('eve')), key);
    expect(second.interruptions[0]!.fingerprint).not.toBe(bobs);

    const forged = { callId: 'c0', approve: true, runId: second.id, fingerprint: bobs };
    const error = await refused(store, StaleDecisionError, () =>
      agent.runtimeFor(store).execute(key, continueRun({ decisions: [forged] })),
    );
    expect(error.message).toContain('other arguments');
    expect(counters.executed).toEqual({});
  });

  it('a RunState reused after one of its calls was decided is refused whole', async () => {
    const { store, agent, counters, runtime } = await setup();
    const paused = await agent.run(callTools(email('bob'), email('carol')), key);
    const saved = JSON.stringify(paused.state);
    const half = await agent.resume(RunState.fromJSON(saved).approve('c0'));
    expect(half.interruptions.map((i) => i.callId)).toEqual(['c1']);

    const stale = RunState.fromJSON(saved).reject('c0').approve('c1');
    const error = await refused(store, AlreadyDecidedError, () => agent.resume(stale));
    expect(error.message).toBe('Tool call "c0" was already approved');
    expect(counters.executed).toEqual({}); // c1 not applied either: the run waits for c1
    const view = await runtime.getSession(key);
    expect(view.run?.state).toBe('awaitingApproval');
  });

  it('decisions for a run interrupted by its budget raise instead of being dropped', async () => {
    const { store, agent, runtime } = await setup();
    await agent.run('[]', key); // creates the session
    await runtime.execute(key, changeBudget({ maxTurns: 2 }));
    const stopped = await agent.run(callTools({ name: 'lookup', arguments: { word: 'x' } }), key);
    expect(stopped).toMatchObject({ interrupted: true, interruptionReason: 'budget' });

    const error = await refused(store, StaleDecisionError, () =>
      runtime.execute(key, continueRun({ decisions: [{ callId: 'c0', approve: true }] })),
    );
    expect(error.message).toContain('not awaiting approval (budget)');
    expect((await runtime.getSession(key)).run?.context.interruption).toBe('budget');
  });
});

describe('decisions of RunStates without run ids or fingerprints still apply', () => {
  it('an older RunState JSON resumes its own run', async () => {
    const { agent, counters } = await setup();
    const paused = await agent.run(callTools(email('bob')), key);
    const old = JSON.parse(JSON.stringify(paused.state)) as {
      interruptions: Record<string, unknown>[];
      decisions: Record<string, unknown>[];
    };
    for (const i of old.interruptions) delete i.fingerprint;
    old.decisions = [{ callId: 'c0', approve: true }]; // as agentstate 0.1 wrote it
    const done = await agent.resume(RunState.fromJSON(old));
    expect(done.output).toBe('done');
    expect(counters.executed).toEqual({ send_email: 1 });
  });
});
