import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  AgentStateError,
  ERROR_CODES,
  RecoveryExhaustedError,
  SessionRuntime,
  tool,
  type AgentOptions,
  type RecoveryExhaustedHook,
  type RunResult,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { errorFromSerialized } from '../../src/errors/error-from-serialized.js';
import { deferred } from '../helpers/async.js';
import { memoryLogger } from '../helpers/otel.js';
import { TempStores } from '../helpers/temp-store.js';
import { TornStore } from '../helpers/torn-store.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import { usePostgres } from '../helpers/postgres-tests.js';

/**
 * `maxRecoveries` (issue 30, "runs that keep crashing"): each restore that finds a step in
 * flight counts; past the limit the run ends `failed` with `RecoveryExhaustedError`. A "crash"
 * here is a process that stops answering: its step never returns, and another agent on the same
 * store (a new process, `lease: false`) restores the run it left. The real SIGKILL proof is
 * test/recovery/poison-run.int.test.ts.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());
const postgres = usePostgres();

const key = { sessionId: 'poison', userId: 'ann' };

/** Asks for `work({ n })` with call id `c<n>` for each n in `calls`, then answers `done`. */
function callsModel(calls: number[]): ScriptedModel {
  return new ScriptedModel((request) => {
    const done = request.items.filter((i) => i.type === 'tool_result').length;
    const n = calls[done];
    return n === undefined
      ? { text: 'done' }
      : { toolCalls: [{ name: 'work', arguments: { n }, callId: `c${n}` }] };
  });
}

/**
 * One "process": an agent whose `work` tool hangs for the calls in `hangs` (its crash);
 * `crashed` resolves with the call's n once it hangs (its start is saved by then).
 */
function processAgent(
  store: SessionStore,
  calls: number[],
  hangs: number[],
  ran: number[],
  options: Partial<AgentOptions> = {},
) {
  const crashed = deferred<number>();
  const work = tool({
    name: 'work',
    description: 'Works on n',
    parameters: z.object({ n: z.number() }),
    // Run again after each restore (a call in doubt is not, by default): the limit is what stops it.
    onInterrupted: 'retry',
    async execute({ n }) {
      ran.push(n);
      if (hangs.includes(n)) {
        crashed.resolve(n);
        await new Promise(() => undefined); // this process is gone
      }
      return `worked ${n}`;
    },
  });
  const agent = new Agent({
    name: 'worker',
    store,
    lease: false,
    model: callsModel(calls),
    tools: [work],
    ...options,
  });
  return { agent, crashed: crashed.promise };
}

async function failureOf(run: Promise<RunResult<unknown>>): Promise<unknown> {
  return run.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('maxRecoveries', () => {
  it('stops a run whose tool never finishes after maxRecoveries restores: failed, typed, hooked, logged', async () => {
    const { store } = await temps.open();
    const ran: number[] = [];
    const hooked: Parameters<RecoveryExhaustedHook>[] = [];
    const log = memoryLogger();
    const first = processAgent(store, [1], [1], ran);
    void first.agent.run('go', key);
    expect(await first.crashed).toBe(1);
    // Two restores may run it again (each "crashes" too); the third stops the run.
    for (let restore = 1; restore <= 2; restore++) {
      const next = processAgent(store, [1], [1], ran, { maxRecoveries: 2 });
      void next.agent.resume(key.sessionId, { userId: key.userId });
      expect(await next.crashed).toBe(1);
    }
    const last = processAgent(store, [1], [1], ran, {
      maxRecoveries: 2,
      logger: log.logger,
      onRecoveryExhausted: (...args) => {
        hooked.push(args);
      },
    });
    const error = await failureOf(last.agent.resume(key.sessionId, { userId: key.userId }));

    expect(ran).toEqual([1, 1, 1]); // 1 + maxRecoveries runs, never a fourth
    expect(error).toBeInstanceOf(RecoveryExhaustedError);
    const exhausted = error as RecoveryExhaustedError;
    expect(exhausted.code).toBe('RECOVERY_EXHAUSTED');
    expect(exhausted.failedStep).toEqual({ kind: 'tool', name: 'work', callId: 'c1', step: 1 });
    expect(exhausted.maxRecoveries).toBe(2);
    expect(exhausted.restores).toBe(3);
    expect(exhausted.sessionId).toBe(key.sessionId);
    expect(exhausted.message).toContain('"work" (call c1)');

    const view = await last.agent.runtimeFor(store).getSession(key);
    expect(view.status).not.toBe('running');
    expect(view.lastRun?.status).toBe('failed');
    expect(view.lastRun?.error).toMatchObject({
      code: 'RECOVERY_EXHAUSTED',
      name: 'RecoveryExhaustedError',
      failedStep: { kind: 'tool', name: 'work', callId: 'c1', step: 1 },
      maxRecoveries: 2,
    });
    expect(exhausted.runId).toBe(view.lastRun?.runId);

    expect(hooked).toHaveLength(1);
    expect(hooked[0]![0]).toBeInstanceOf(RecoveryExhaustedError);
    expect(hooked[0]![1]).toEqual({ ...key, runId: view.lastRun?.runId });
    const line = log.lines.find((l) => l['event'] === 'run.recovery_exhausted');
    expect(line).toMatchObject({
      level: 'error',
      ...key,
      runId: view.lastRun?.runId,
      step: { kind: 'tool', name: 'work', callId: 'c1', step: 1 },
      restores: 3,
      maxRecoveries: 2,
    });
    // Resuming the failed run is refused: nothing runs again.
    const again = processAgent(store, [1], [], ran);
    await expect(again.agent.resume(key.sessionId, { userId: key.userId })).rejects.toThrow();
    expect(ran).toEqual([1, 1, 1]);
  });

  it('counts per step: a step that finishes starts the count again for the next', async () => {
    const { store } = await temps.open();
    const ran: number[] = [];
    const options = { maxRecoveries: 1 };
    const a = processAgent(store, [1, 2], [1], ran, options);
    void a.agent.run('go', key);
    expect(await a.crashed).toBe(1);
    // Restore 1 of the run: call 1 runs again (1 restart, allowed) and finishes; call 2 hangs.
    const b = processAgent(store, [1, 2], [2], ran, options);
    void b.agent.resume(key.sessionId, { userId: key.userId });
    expect(await b.crashed).toBe(2);
    // Restore 2 of the run, but the first of call 2: it runs again (it would have been the
    // run's second restore past a limit of 1 if restores were counted per run).
    const c = processAgent(store, [1, 2], [2], ran, options);
    void c.agent.resume(key.sessionId, { userId: key.userId });
    expect(await c.crashed).toBe(2);
    expect(ran).toEqual([1, 1, 2, 2]);
    // Restore 3: call 2's second restart is past the limit.
    const d = processAgent(store, [1, 2], [], ran, options);
    const error = await failureOf(d.agent.resume(key.sessionId, { userId: key.userId }));
    expect(error).toBeInstanceOf(RecoveryExhaustedError);
    expect((error as RecoveryExhaustedError).failedStep).toMatchObject({
      kind: 'tool',
      callId: 'c2',
    });
    expect(ran).toEqual([1, 1, 2, 2]);
  });

  it('names a model step after its agent; maxRecoveries 0 never runs a step in flight again', async () => {
    const { store } = await temps.open();
    const called = deferred();
    const stuck = new Agent({
      name: 'thinker',
      store,
      lease: false,
      model: new ScriptedModel(async () => {
        called.resolve();
        return new Promise(() => undefined);
      }),
    });
    void stuck.run('go', key);
    await called.promise;
    let calls = 0;
    const resumer = new Agent({
      name: 'thinker',
      store,
      lease: false,
      model: new ScriptedModel(() => {
        calls += 1;
        return { text: 'late' };
      }),
    });
    // The runtime's maxRecoveries wins over the agent's (none here: 3); recover() restores.
    const runtime = new SessionRuntime({ store, agent: resumer, maxRecoveries: 0 });
    const recovered = await runtime.recover({ olderThan: 0, userId: key.userId });
    expect(recovered.map((r) => r.key)).toEqual([key]);
    const { error } = recovered[0]!;
    expect(calls).toBe(0);
    expect(error).toBeInstanceOf(RecoveryExhaustedError);
    expect((error as RecoveryExhaustedError).failedStep).toEqual({
      kind: 'model',
      name: 'thinker',
      step: 0,
    });
  });

  it('a step whose result was journaled, though the snapshot still shows it in flight, is replayed, not counted', async () => {
    const temp = await temps.open();
    await temp.store.close();
    // The save that journals the first model step lands its entry but not its snapshot.
    const torn = new TornStore(temp.path, (e) => e.kind === 'model' && e.step === 0);
    await torn.ready();
    const opts = { sessionId: key.sessionId, userId: key.userId };
    const lookup = { name: 'lookup', arguments: { word: 'owl' } };
    await expect(approvalAgent(torn).agent.run(callTools(lookup), opts)).rejects.toThrow(
      /power cut/,
    );
    await torn.close();
    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const second = approvalAgent(store, { maxRecoveries: 0 });
    const done = await second.agent.resume(key.sessionId, { userId: key.userId });
    expect(done.output).toBe('Done. lookup: owl: found');
    expect(second.model.calls).toHaveLength(1); // step 0 came from the journal
  });

  it('on PostgreSQL too: the count and the failure are stored with the run', async () => {
    const { store, cleanup } = await postgres.freshStore('poison');
    temps.defer(cleanup);
    const ran: number[] = [];
    const first = processAgent(store, [1], [1], ran);
    void first.agent.run('go', key);
    expect(await first.crashed).toBe(1);
    const second = processAgent(store, [1], [1], ran, { maxRecoveries: 1 });
    void second.agent.resume(key.sessionId, { userId: key.userId });
    expect(await second.crashed).toBe(1);
    const last = processAgent(store, [1], [], ran, { maxRecoveries: 1 });
    const error = await failureOf(last.agent.resume(key.sessionId, { userId: key.userId }));
    expect(error).toBeInstanceOf(RecoveryExhaustedError);
    expect(ran).toEqual([1, 1]);
    const view = await last.agent.runtimeFor(store).getSession(key);
    expect(view.lastRun?.error).toMatchObject({
      code: 'RECOVERY_EXHAUSTED',
      failedStep: { kind: 'tool', name: 'work', callId: 'c1', step: 1 },
    });
  });

  it('RecoveryExhaustedError keeps its fields through its stored form', () => {
    const error = new RecoveryExhaustedError(
      { kind: 'tool', name: 'charge', callId: 'call_9', step: 4 },
      3,
      { sessionId: 's', runId: 'r' },
    );
    expect(error).toBeInstanceOf(AgentStateError);
    expect(ERROR_CODES).toContain(error.code);
    expect(error.restores).toBe(4);
    const stored = JSON.parse(JSON.stringify(error.toJSON())) as ReturnType<typeof error.toJSON>;
    expect(stored).toEqual({
      name: 'RecoveryExhaustedError',
      code: 'RECOVERY_EXHAUSTED',
      message: error.message,
      failedStep: { kind: 'tool', name: 'charge', callId: 'call_9', step: 4 },
      maxRecoveries: 3,
    });
    const rebuilt = errorFromSerialized(stored, { sessionId: 's', runId: 'r' });
    expect(rebuilt).toBeInstanceOf(RecoveryExhaustedError);
    expect(rebuilt).toMatchObject({
      failedStep: error.failedStep,
      maxRecoveries: 3,
      message: error.message,
      sessionId: 's',
      runId: 'r',
    });
  });

  it('rejects a maxRecoveries that is not a non-negative integer', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel([]);
    expect(() => new Agent({ name: 'a', model, maxRecoveries: -1 })).toThrow(TypeError);
    expect(() => new Agent({ name: 'a', model, maxRecoveries: 1.5 })).toThrow(/maxRecoveries/);
    const agent = new Agent({ name: 'a', model });
    expect(() => new SessionRuntime({ store, agent, maxRecoveries: -2 })).toThrow(/maxRecoveries/);
    expect(
      () => new Agent({ name: 'a', model, onRecoveryExhausted: 'x' as unknown as () => void }),
    ).toThrow(/onRecoveryExhausted/);
  });
});
