import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  InvalidRunStateError,
  MaxTurnsExceededError,
  RUN_STATE_SCHEMA_VERSION,
  RunState,
  tool,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const opts = { sessionId: 'rs', userId: 'alice' };
const email = { name: 'send_email', arguments: { to: 'bob@example.com', body: 'hi' } };

async function pausedRun() {
  const { store } = await temps.open();
  const made = approvalAgent(store);
  const paused = await made.agent.run(callTools(email), opts);
  return { store, ...made, paused };
}

describe('RunState', () => {
  it('serialises to JSON and back, carrying its schema version', async () => {
    const { paused } = await pausedRun();
    const json = JSON.stringify(paused.state);
    const parsed = JSON.parse(json) as Record<string, unknown>;
    expect(parsed.schemaVersion).toBe(RUN_STATE_SCHEMA_VERSION);
    expect(parsed).toMatchObject({
      runId: paused.id,
      sessionId: 'rs',
      userId: 'alice',
      status: 'interrupted',
    });

    const restored = RunState.fromJSON(json);
    expect(restored.toJSON()).toEqual(paused.state.toJSON());
    expect(RunState.fromJSON(parsed).toJSON()).toEqual(paused.state.toJSON());
    expect(restored.interruptions).toEqual(paused.interruptions);
    expect(String(restored)).toBe(json);
  });

  it('reads the run history without running anything', async () => {
    const { paused, model, counters } = await pausedRun();
    const state = RunState.fromJSON(JSON.stringify(paused.state));
    expect(state.history).toEqual([
      { type: 'message', role: 'user', content: callTools(email) },
      {
        type: 'tool_call',
        callId: 'call_1_0',
        name: 'send_email',
        arguments: JSON.stringify(email.arguments),
        agent: 'assistant',
      },
    ]);
    expect(model.calls).toHaveLength(1);
    expect(counters.executed).toEqual({});
  });

  it('rejects invalid JSON and schema mismatches with InvalidRunStateError', async () => {
    const { paused } = await pausedRun();
    expect(() => RunState.fromJSON('{not json')).toThrow(InvalidRunStateError);
    expect(() => RunState.fromJSON('null')).toThrow(
      expect.objectContaining({ code: 'INVALID_RUN_STATE' }),
    );
    const data = paused.state.toJSON();
    const { runId: _runId, ...withoutRunId } = data;
    expect(() => RunState.fromJSON(withoutRunId)).toThrow(/runId/);
    expect(() => RunState.fromJSON({ ...data, usage: { inputTokens: 'many' } })).toThrow(
      InvalidRunStateError,
    );
    expect(() => RunState.fromJSON({ ...data, items: [{ type: 'bogus' }] })).toThrow(
      InvalidRunStateError,
    );
  });

  it('refuses impossible usage: a negative cost, a token count no model reports', async () => {
    const { paused } = await pausedRun();
    const data = paused.state.toJSON();
    for (const usage of [
      { ...data.usage, costUsd: -1 },
      { ...data.usage, outputTokens: 1e308 },
      { ...data.usage, inputTokens: 2.5 },
    ]) {
      expect(() => RunState.fromJSON({ ...data, usage }), JSON.stringify(usage)).toThrow(
        InvalidRunStateError,
      );
    }
  });

  it('refuses a RunState written by a newer schema version', async () => {
    const { paused } = await pausedRun();
    const newer = JSON.stringify({
      ...paused.state.toJSON(),
      schemaVersion: RUN_STATE_SCHEMA_VERSION + 1,
    });
    let error: unknown;
    try {
      RunState.fromJSON(newer);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidRunStateError);
    expect(error).toMatchObject({ code: 'INVALID_RUN_STATE' });
    expect((error as Error).message).toMatch(/schema version 2/);
  });

  it('carries usage over a resume instead of resetting it', async () => {
    const { agent, paused } = await pausedRun();
    expect(paused.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    expect(paused.state.usage).toEqual(paused.usage);
    const done = await agent.resume(
      RunState.fromJSON(JSON.stringify(paused.state)).approve('call_1_0'),
    );
    // Before the pause: one model call; after: one more (10 in, 5 out each).
    expect(done.usage).toMatchObject({ inputTokens: 20, outputTokens: 10 });
    expect(done.state.usage).toEqual(done.usage);
    expect(done.turns).toBe(2);
  });

  it('carries an in-memory session, so a run without a store resumes from its JSON alone', async () => {
    const { agent, counters } = approvalAgent(undefined);
    const paused = await agent.run(callTools(email));
    expect(paused.interrupted).toBe(true);
    const json = JSON.stringify(paused.state);

    const other = approvalAgent(undefined);
    const done = await other.agent.resume(RunState.fromJSON(json).approve('call_1_0'));
    expect(done.output).toBe('Done. send_email: sent to bob@example.com');
    expect(other.counters.executed).toEqual({ send_email: 1 });
    expect(counters.executed).toEqual({});
  });

  it('MaxTurnsExceededError.state resumes with a higher maxTurns', async () => {
    const { store } = await temps.open();
    let executed = 0;
    const step = tool({
      name: 'step',
      description: 'One step',
      parameters: z.object({}),
      execute: () => ++executed,
    });
    const model = new ScriptedModel(
      (request) =>
        request.items.filter((i) => i.type === 'tool_result').length < 3
          ? { toolCalls: [{ name: 'step' }] }
          : { text: 'three steps' },
      { recordCalls: true },
    );
    const agent = new Agent({ name: 'stepper', model, tools: [step], store, maxTurns: 2 });

    const error = await agent.run('go', opts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MaxTurnsExceededError);
    const limited = error as MaxTurnsExceededError<RunState>;
    expect(limited.code).toBe('MAX_TURNS_EXCEEDED');
    expect(limited.state).toBeInstanceOf(RunState);
    expect(limited.state?.data).toMatchObject({
      turn: 2,
      maxTurns: 2,
      interruptionReason: 'maxTurns',
    });

    const state = RunState.fromJSON(JSON.stringify(limited.state));
    const done = await agent.resume(state, { maxTurns: 5 });
    expect(done.output).toBe('three steps');
    expect(done.turns).toBe(4);
    expect(done.usage.inputTokens).toBe(40);
    expect(executed).toBe(3);
  });
});
