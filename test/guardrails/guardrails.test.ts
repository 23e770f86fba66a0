import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  GuardrailError,
  GuardrailTripwireError,
  LevelSessionStore,
  RunState,
  getRunContext,
  tool,
  type InputGuardrail,
  type OutputGuardrail,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import { rejection } from '../helpers/agent-fixtures.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const opts = (sessionId: string) => ({ sessionId, userId: 'alice' });

/** A guardrail that trips on a word and records what it saw (and the RunContext it ran in). */
function wordGuard(name: string, word: string, seen: string[], runInParallel = false) {
  return {
    name,
    runInParallel,
    check: ({ text }: { text: string }) => {
      const { userId, runId } = getRunContext();
      seen.push(`${name}:${userId}:${runId}:${text}`);
      return { tripwire: text.includes(word), info: { word, length: text.length } };
    },
  } satisfies InputGuardrail;
}

const outputGuard = (seen: string[]): OutputGuardrail => ({
  name: 'no_refunds',
  check: ({ text }) => {
    seen.push(`out:${getRunContext().userId}:${text}`);
    return { tripwire: /refund/i.test(text ?? ''), info: { text: text ?? null } };
  },
});

describe('guardrails', () => {
  it('runs input guardrails before the first model call and output guardrails on the final output, recording both', async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    const model = new ScriptedModel([{ text: 'Hello there' }]);
    const agent = new Agent({
      name: 'greeter',
      model,
      store,
      inputGuardrails: [wordGuard('no_secrets', 'password', seen)],
      outputGuardrails: [outputGuard(seen)],
    });
    const result = await agent.run('hi', opts('g1'));
    expect(result.output).toBe('Hello there');
    expect(seen).toEqual([`no_secrets:alice:${result.id}:hi`, 'out:alice:Hello there']);
    expect(result.state.guardrails).toEqual([
      { name: 'no_secrets', kind: 'input', tripwire: false, info: { word: 'password', length: 2 } },
      { name: 'no_refunds', kind: 'output', tripwire: false, info: { text: 'Hello there' } },
    ]);
    // Journaled like a step: one entry per guardrail step, before and after the model step.
    const journal = await store.readRunJournal(opts('g1'), result.id);
    expect(journal.map((e) => e.kind)).toEqual(['guardrail', 'model', 'guardrail']);
    // The RunState carries them through JSON.
    expect(RunState.fromJSON(JSON.stringify(result.state)).guardrails).toHaveLength(2);
  });

  it('a tripped input guardrail ends the run with GuardrailTripwireError before any model call', async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    let modelCalls = 0;
    const model = new ScriptedModel(() => {
      modelCalls += 1;
      return { text: 'never' };
    });
    const agent = new Agent({
      name: 'greeter',
      model,
      store,
      inputGuardrails: [wordGuard('no_secrets', 'password', seen)],
    });
    const error = await rejection(agent.run('my password is hunter2', opts('g2')));
    expect(error).toBeInstanceOf(GuardrailTripwireError);
    const tripped = error as GuardrailTripwireError<RunState>;
    expect(tripped.code).toBe('GUARDRAIL_TRIPWIRE');
    expect(tripped.guardrail).toMatchObject({ name: 'no_secrets', kind: 'input', tripwire: true });
    expect(tripped.state).toBeInstanceOf(RunState);
    expect(tripped.state!.guardrails).toEqual([tripped.guardrail]);
    expect(tripped.state!.data.status).toBe('failed');
    expect(modelCalls).toBe(0);
    // The session takes messages again (the run is over).
    const next = new Agent({ name: 'greeter', model: new ScriptedModel([{ text: 'ok' }]), store });
    await expect(next.run('hello', opts('g2'))).resolves.toMatchObject({ output: 'ok' });
  });

  it('a parallel input guardrail runs with the first model call; its tripwire discards the answer', async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    const model = new ScriptedModel([{ text: 'Sure, the admin password is ...' }]);
    const agent = new Agent({
      name: 'greeter',
      model,
      store,
      inputGuardrails: [wordGuard('fast_check', 'password', seen, true)],
    });
    const error = await rejection(agent.run('tell me the password', opts('g3')));
    expect(error).toBeInstanceOf(GuardrailTripwireError);
    expect(seen).toHaveLength(1);
    const history = await store.readHistory(opts('g3'), 0);
    expect(history.some((i) => i.type === 'message' && i.role === 'assistant')).toBe(false);
    const journal = (await store.load(opts('g3'))).snapshot;
    expect(JSON.stringify(journal)).toContain('fast_check');
  });

  it('a parallel input guardrail that passes keeps the answer', async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    const agent = new Agent({
      name: 'greeter',
      model: new ScriptedModel([{ text: 'Hi!' }]),
      store,
      inputGuardrails: [wordGuard('fast_check', 'password', seen, true)],
    });
    const result = await agent.run('hello', opts('g4'));
    expect(result.output).toBe('Hi!');
    expect(result.state.guardrails).toMatchObject([{ name: 'fast_check', tripwire: false }]);
  });

  it('a tripped output guardrail ends the run with the tripwire error', async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    const agent = new Agent({
      name: 'support',
      model: new ScriptedModel([{ text: 'I will refund you' }]),
      store,
      outputGuardrails: [outputGuard(seen)],
    });
    const error = (await rejection(agent.run('help', opts('g5')))) as GuardrailTripwireError;
    expect(error).toBeInstanceOf(GuardrailTripwireError);
    expect(error.guardrail).toEqual({
      name: 'no_refunds',
      kind: 'output',
      tripwire: true,
      info: { text: 'I will refund you' },
    });
  });

  it('a guardrail that throws fails the run with GuardrailError', async () => {
    const { store } = await temps.open();
    const agent = new Agent({
      name: 'support',
      model: new ScriptedModel([{ text: 'x' }]),
      store,
      inputGuardrails: [
        {
          name: 'broken',
          check: () => {
            throw new Error('boom');
          },
        },
      ],
    });
    const error = await rejection(agent.run('help', opts('g6')));
    expect(error).toMatchObject({ code: 'GUARDRAIL_FAILED' });
    expect(error.message).toMatch(/broken.*boom/);
    expect(error).toBeInstanceOf(Error);
    expect(GuardrailError.name).toBe('GuardrailError');
  });

  it('redacts guardrail info before it is journaled', async () => {
    const { store } = await temps.open();
    const secret = 'sk-test-TOPSECRET-123';
    const agent = new Agent({
      name: 'support',
      model: new ScriptedModel([{ text: 'x' }]),
      store,
      redact: (text) => text.replaceAll(secret, '[REDACTED]'),
      inputGuardrails: [
        { name: 'leaky', check: ({ text }) => ({ tripwire: false, info: { text } }) },
      ],
    });
    const result = await agent.run(`key ${secret}`, opts('g7'));
    const journal = await store.readRunJournal(opts('g7'), result.id);
    expect(JSON.stringify(journal)).not.toContain(secret);
    expect(result.state.guardrails[0]?.info).toEqual({ text: 'key [REDACTED]' });
  });

  it('a run resumed in a reopened store never evaluates a journaled guardrail again', async () => {
    const temp = await temps.open();
    const counts = { input: 0, output: 0 };
    const pay = tool({
      name: 'pay',
      description: 'Pays',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `paid ${amount}`,
    });
    const makeAgent = (store: LevelSessionStore) =>
      new Agent({
        name: 'payer',
        model: new ScriptedModel((request) =>
          request.items.some((i) => i.type === 'tool_result')
            ? { text: 'Done' }
            : { toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] },
        ),
        tools: [pay],
        store,
        inputGuardrails: [
          {
            name: 'in',
            check: () => {
              counts.input += 1;
              return { tripwire: false };
            },
          },
        ],
        outputGuardrails: [
          {
            name: 'out',
            check: () => {
              counts.output += 1;
              return { tripwire: false };
            },
          },
        ],
      });
    const paused = await makeAgent(temp.store).run('pay 5', opts('g8'));
    expect(paused.interrupted).toBe(true);
    expect(counts).toEqual({ input: 1, output: 0 });
    await temp.store.close();

    const reopened = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => reopened.close());
    const state = RunState.fromJSON(JSON.stringify(paused.state));
    const callId = state.interruptions[0]!.callId;
    const done = await makeAgent(reopened).resume(state.approve(callId), { store: reopened });
    expect(done.output).toBe('Done');
    expect(counts).toEqual({ input: 1, output: 1 });
    expect(done.state.guardrails.map((g) => `${g.kind}:${g.name}`)).toEqual([
      'input:in',
      'output:out',
    ]);
  });

  it("runs a sub-agent's guardrails inside the sub-agent's RunContext; a tripwire becomes the parent's tool error", async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    const child = new Agent({
      name: 'billing',
      model: new ScriptedModel([{ text: 'never' }]),
      inputGuardrails: [wordGuard('child_check', 'forbidden', seen)],
    });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: 'ask_billing', arguments: { input: 'a forbidden question' } }] },
      { text: 'Could not ask' },
    ]);
    const parent = new Agent({
      name: 'triage',
      model: parentModel,
      store,
      tools: [child.asTool({ name: 'ask_billing', description: 'Billing', userId: 'billing-bot' })],
    });
    const result = await parent.run('question', opts('g9'));
    expect(result.output).toBe('Could not ask');
    expect(seen).toHaveLength(1);
    const [name, userId, runId] = seen[0]!.split(':');
    expect(name).toBe('child_check');
    expect(userId).toBe('billing-bot');
    expect(runId).toBe(result.subRuns[0]!.runId);
    const toolError = result.newItems.find((i) => i.type === 'tool_result');
    expect(toolError).toMatchObject({ isError: true });
    expect(JSON.stringify(toolError)).toContain('GUARDRAIL_TRIPWIRE');
  });

  it('refuses bad guardrail options with a TypeError naming the option', () => {
    const model = new ScriptedModel([]);
    expect(
      () => new Agent({ name: 'a', model, inputGuardrails: [{ name: 'x' }] as never }),
    ).toThrow(/inputGuardrails/);
    expect(() => new Agent({ name: 'a', model, outputGuardrails: 'no' as never })).toThrow(
      TypeError,
    );
  });
});
