import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  InvalidReplayError,
  RunNotFoundError,
  SessionNotFoundError,
  exportReplay,
  parseReplay,
  type ReplayFile,
} from '../../src/index.js';
import { FakeClock, MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'incident', userId: 'alice' };
const SECRET = 'tok-sekrit-991';
const redact = (text: string) => text.replaceAll(SECRET, '[gone]');

/** A triage run with a sub-agent call (which calls its own tool) and a tool call, exported. */
async function recordedRun() {
  const { store } = await temps.open();
  const { triage, seen } = triageWithBilling({ store, triage: { redact } });
  const result = await triage.run(`where is order 42? (${SECRET})`, key);
  const runtime = triage.runtimeFor(store);
  const clock = new FakeClock(1_700_000_000_000);
  const progress: number[] = [];
  const replay = await exportReplay(runtime, key, {
    clock,
    redact,
    onProgress: (n) => progress.push(n),
  });
  return { store, triage, result, replay, runtime, progress, seen };
}

describe('exportReplay and ScriptedModel.fromReplay', () => {
  it('exports a run: input, every model answer in order, tool results, sub-agent runs, versions and times', async () => {
    const { result, replay, progress, runtime } = await recordedRun();
    expect(replay).toMatchObject({
      format: 'agentstate-replay',
      version: 1,
      exportedAt: 1_700_000_000_000,
      session: { sessionId: 'incident', userId: 'alice' },
      run: {
        runId: result.id,
        agentName: 'triage',
        status: 'completed',
        turns: 3,
        output: 'triage: billing: order 42 is shipped',
      },
    });
    expect(replay.versions.agentstate).toMatch(/^\d+\.\d+\.\d+/);
    expect(replay.versions.machine).toMatch(/^session-/);
    expect(replay.run.input).toEqual([
      { type: 'message', role: 'user', content: 'where is order 42? ([gone])' },
    ]);
    expect(replay.runs.map((r) => r.agentPath)).toEqual([['triage'], ['triage', 'billing']]);
    const [top, child] = replay.runs;
    expect(top!.modelCalls.map((c) => c.toolCalls.map((t) => t.name))).toEqual([
      ['ask_billing'],
      ['audit'],
      [],
    ]);
    expect(top!.modelCalls[0]!.toolCalls[0]!.subRunId).toBe(child!.runId);
    expect(top!.toolResults.map((t) => [t.name, t.output])).toEqual([
      ['ask_billing', 'billing: order 42 is shipped'],
      ['audit', 'noted'],
    ]);
    expect(child!.input).toBe('where is order 42? ([gone])');
    expect(child!.modelCalls.map((c) => c.agent)).toEqual(['billing', 'billing']);
    expect(child!.toolResults.map((t) => t.output)).toEqual(['order 42 is shipped']);
    expect(replay.run.lastStepAt).toBeGreaterThanOrEqual(replay.run.startedAt);
    expect(progress).toEqual([1, 2]);
    // the export's `redact` scrubs what the store kept verbatim (the user's input)
    expect(JSON.stringify(replay)).not.toContain(SECRET);
    const plain = await exportReplay(runtime, key);
    expect(JSON.stringify(plain)).toContain(SECRET);
  });

  it('a production incident becomes a test: the loaded replay re-runs to the same output and calls', async () => {
    const { replay, result, seen } = await recordedRun();
    const file = JSON.stringify(replay, null, 2);
    const { store } = await temps.open();
    const triageModel = ScriptedModel.fromReplay(file);
    const billingModel = ScriptedModel.fromReplay(file, { agent: 'billing' });
    const again = triageWithBilling({
      store,
      triage: { model: triageModel },
      billing: { model: billingModel },
    });
    const input = parseReplay(file).run.input;
    const rerun = await again.triage.run(input, { sessionId: 'replayed', userId: 'alice' });
    expect(rerun.output).toBe(result.output);
    expect(rerun.subRuns.map((r) => [r.agentPath, r.output])).toEqual(
      result.subRuns.map((r) => [r.agentPath, r.output]),
    );
    triageModel.assertComplete();
    billingModel.assertComplete();
    expect(again.seen.contexts.map((c) => c.tool)).toEqual(seen.contexts.map((c) => c.tool));
    const history = await store.readHistory({ sessionId: 'replayed', userId: 'alice' });
    const callIds = history.flatMap((i) => (i.type === 'tool_call' ? [i.callId] : []));
    expect(callIds).toEqual(
      replay.runs[0]!.modelCalls.flatMap((c) => c.toolCalls.map((t) => t.callId)),
    );
  });

  it('a run with guardrails exports (their steps are not part of a replay)', async () => {
    const store = new MemorySessionStore();
    const pass = () => ({ tripwire: false });
    const guarded = new Agent({
      name: 'guarded',
      model: new ScriptedModel([{ text: 'hi' }]),
      inputGuardrails: [{ name: 'in', check: pass }],
      outputGuardrails: [{ name: 'out', check: pass }],
    });
    await guarded.run('hello', { ...key, store });
    const replay = await exportReplay(guarded.runtimeFor(store), key);
    expect(replay.run).toMatchObject({ status: 'completed', output: 'hi' });
    expect(replay.runs[0]!.modelCalls.map((c) => c.text)).toEqual(['hi']);
    expect(replay.runs[0]!.approvals).toEqual([]);
  });

  it('a paused run exports too, with its state as status', async () => {
    const { store } = await temps.open();
    const { triage } = triageWithBilling({ store });
    const paused = await triage.run('please refund order 9', key);
    expect(paused.interrupted).toBe(true);
    const replay = await exportReplay(triage.runtimeFor(store), key);
    expect(replay.run).toMatchObject({ runId: paused.id, status: 'tools' });
    expect(replay.runs[1]!.approvals.at(-1)!.calls).toEqual([
      expect.objectContaining({ needsApproval: true }),
    ]);
    await expect(
      exportReplay(triage.runtimeFor(store), key, { runId: 'nope' }),
    ).rejects.toBeInstanceOf(RunNotFoundError);
  });

  it('holds the user partition and refuses a session without runs', async () => {
    const { runtime, store } = await recordedRun();
    await expect(
      exportReplay(runtime, { sessionId: 'incident', userId: 'bob' }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(exportReplay(runtime, 'incident')).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(store).toBeDefined();
    expect(() => exportReplay(runtime, key, { runid: 'x' } as never)).toThrow(TypeError);
  });

  it('a bad replay file is InvalidReplayError naming the spot', async () => {
    const { replay } = await recordedRun();
    const cases: [unknown, RegExp][] = [
      ['{not json', /not JSON/],
      [{ ...replay, format: 'other' }, /at format/],
      [{ ...replay, version: 2 }, /newer/],
      [{ ...replay, runs: [] }, /at runs/],
      [
        {
          ...replay,
          runs: [
            {
              ...replay.runs[0]!,
              modelCalls: [{ ...replay.runs[0]!.modelCalls[0]!, toolCalls: 'x' }],
            },
          ],
        },
        /at runs\.0\.modelCalls\.0\.toolCalls/,
      ],
      [null, /Invalid replay file/],
    ];
    for (const [value, message] of cases) {
      const error = (() => {
        try {
          ScriptedModel.fromReplay(value);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(InvalidReplayError);
      expect(error).toMatchObject({ code: 'INVALID_REPLAY' });
      expect((error as Error).message).toMatch(message);
    }
    const good: ReplayFile = JSON.parse(JSON.stringify(replay)) as ReplayFile;
    expect(() => ScriptedModel.fromReplay(good, { agent: 'nobody' })).toThrow(
      /no answers of agent "nobody"; it has "triage", "billing"/,
    );
  });
});
