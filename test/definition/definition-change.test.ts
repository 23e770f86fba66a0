import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  DefinitionChangedError,
  OpenAIModel,
  RunContext,
  SessionRuntime,
  continueRun,
  tool,
  toolkit,
  type AgentOptions,
  type DefinitionChange,
  type Model,
  type SessionStore,
} from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { storedRun } from '../../src/runs/stored-run.js';
import { AgentBinding } from '../../src/definition/agent-binding.js';
import { definitionChanges } from '../../src/definition/definition-fingerprint.js';
import { allRuns, type RunNode } from '../../src/runs/run-tree.js';
import { deferred, zeroTimeout } from '../helpers/async.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { lastResult, triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 30, "resume pinned to its definition": a run records a fingerprint of what defined it
 * (a hash per part), and a resume by its agent defined otherwise is `DefinitionChangedError`
 * listing the parts, changing nothing stored, unless the agent declares the change compatible.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'refund-9', userId: 'alice' };
const V1_PARAMETERS = z.object({ order: z.string() });

/** A refunds agent: `issue_refund` needs approval; each definition change is an override. */
function refunds(
  store: SessionStore,
  effects: string[],
  change: { parameters?: z.ZodObject; dropLookup?: boolean; modelName?: string } & Partial<
    AgentOptions<unknown>
  > = {},
) {
  const { parameters, dropLookup, modelName, ...options } = change;
  const issueRefund = tool({
    name: 'issue_refund',
    description: 'Refunds an order',
    parameters: parameters ?? V1_PARAMETERS,
    needsApproval: true,
    execute: (args: { order: string }) => {
      effects.push(args.order);
      return `refunded ${args.order}`;
    },
  });
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an order up',
    parameters: z.object({ order: z.string() }),
    execute: () => 'shipped',
  });
  const model = new ScriptedModel(
    (request) =>
      lastResult(request) === undefined
        ? { toolCalls: [{ name: 'issue_refund', arguments: { order: '9' } }] }
        : { text: `done: ${lastResult(request)}` },
    { name: modelName ?? 'model-a' },
  );
  return new Agent({
    name: 'refunds',
    instructions: 'Refund orders politely.',
    model,
    store,
    tools: dropLookup ? [issueRefund] : [issueRefund, lookup],
    ...options,
  });
}

async function refusal(promise: Promise<unknown>): Promise<DefinitionChangedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DefinitionChangedError);
  return error as DefinitionChangedError;
}

/** A refund paused for approval by the v1 agent, and what is stored then. */
async function pausedRefund() {
  const { store } = await temps.open();
  const effects: string[] = [];
  const paused = await refunds(store, effects).run('refund order 9', key);
  expect(paused.interruptions.map((i) => i.toolName)).toEqual(['issue_refund']);
  return { store, effects, paused, callId: paused.interruptions[0]!.callId };
}

const CHANGES: [string, Parameters<typeof refunds>[2], string[]][] = [
  ['its instructions', { instructions: 'Refund orders generously.' }, ['instructions']],
  [
    "a tool's parameters schema",
    { parameters: z.object({ order: z.string(), amount: z.number() }) },
    ['tool:issue_refund.parameters'],
  ],
  ['a removed tool', { dropLookup: true }, ['tool:lookup']],
  ['its model', { modelName: 'model-b' }, ['model']],
  ['its model settings', { modelSettings: { temperature: 0 } }, ['modelSettings']],
  ['its output schema', { outputType: z.object({ ok: z.boolean() }) }, ['output']],
  [
    'several parts at once',
    {
      instructions: 'Refund orders generously.',
      parameters: z.object({ order: z.number() }),
      modelName: 'model-b',
    },
    ['instructions', 'tool:issue_refund.parameters', 'model'],
  ],
];

describe('a paused run resumes only with the definition it started with', () => {
  for (const [what, change, changed] of CHANGES) {
    it(`a change of ${what} is DEFINITION_CHANGED listing ${changed.join(', ')}; nothing stored changes`, async () => {
      const { store, effects, paused, callId } = await pausedRefund();
      const before = await dumpBackend(store);
      const v2 = refunds(store, effects, change);

      const error = await refusal(v2.resume(paused.state.approve(callId)));
      expect(error).toMatchObject({
        code: 'DEFINITION_CHANGED',
        sessionId: key.sessionId,
        runId: paused.id,
        changed,
        agentPath: ['refunds'],
      });
      expect(error.message).toContain(`agent "refunds"`);
      await refusal(v2.resume(key.sessionId, { userId: key.userId }));
      await refusal(new SessionRuntime({ store, agent: v2 }).execute(key, continueRun()));
      expect(await dumpBackend(store)).toEqual(before);
      expect(effects).toEqual([]);

      // The definition it started with still resumes it.
      const done = await refunds(store, effects).resume(paused.state.approve(callId));
      expect(done.output).toBe('done: refunded 9');
      expect(effects).toEqual(['9']);
    });
  }

  it('a removed tool the run waits on is listed as removed; the message says what changed', async () => {
    const { store, effects, paused, callId } = await pausedRefund();
    const v2 = refunds(store, effects, { tools: [] });
    const error = await refusal(v2.resume(paused.state.approve(callId)));
    expect(error.changes).toEqual([
      { part: 'tool:issue_refund', change: 'removed' },
      { part: 'tool:lookup', change: 'removed' },
    ]);
    expect(error.message).toBe(
      `Session "refund-9"'s run was started by another definition of agent "refunds" (changed: tool:issue_refund (removed), tool:lookup (removed)): resume it with the definition it started with, or declare the change compatible (compatibleWith)`,
    );
  });

  it('the fingerprint is a short hash per part: no instructions, schema or model name in clear', async () => {
    const { store } = await pausedRefund();
    const run = storedRun<RunNode>((await store.load(key)).snapshot);
    const definition = run?.context?.definition;
    // Short keys: the fingerprint is written with every save of the run.
    expect(Object.keys(definition ?? {})).toEqual(['i', 't:issue_refund', 't:lookup', 'm', 'x']);
    for (const hash of Object.values(definition ?? {})) expect(hash).toMatch(/^[\w-]{8}$/);
    // Only a model step's journal entry keeps the instructions, as sent (what the model saw):
    // no other record, the fingerprint among them, holds them or the model's name in clear.
    const entries = await dumpBackend(store);
    const outside = JSON.stringify(entries.filter(([k]) => !k.startsWith('j!')));
    expect(outside).not.toContain('Refund orders politely');
    expect(JSON.stringify(entries)).not.toContain('model-a');
    const journal = entries.filter(([k]) => k.startsWith('j!')).map(([, v]) => v);
    expect(journal.some((v) => v.includes('Refund orders politely'))).toBe(true);
  });
});

describe('what the fingerprint reads', () => {
  it("never a model's API key or address: rotating a key is no change; the model's name is", async () => {
    const fingerprint = async (model: Model) => {
      const agent = { name: 'a', instructions: 'Hi.', model };
      const binding = await AgentBinding.create(agent, new RunContext({ sessionId: 's' }));
      return binding.definition;
    };
    const secret = 'sk-test-secret-one';
    const one = await fingerprint(
      new OpenAIModel({ model: 'gpt-4o', apiKey: secret, baseURL: 'http://127.0.0.1:9/v1' }),
    );
    const rotated = await fingerprint(
      new OpenAIModel({ model: 'gpt-4o', apiKey: 'sk-test-two', baseURL: 'http://127.0.0.1:8/v1' }),
    );
    expect(rotated).toEqual(one);
    const other = await fingerprint(new OpenAIModel({ model: 'gpt-4.1', apiKey: secret }));
    expect(definitionChanges(one, other)).toEqual([{ part: 'model', change: 'changed' }]);
    expect(JSON.stringify(one)).not.toContain(secret);
  });

  it("is computed once per agent definition, not per binding; a toolkit's new schema is a new one", async () => {
    const script = () => ({ text: 'ok' });
    let orderType: z.ZodType = z.string();
    const kit = toolkit({
      name: 'orders',
      create: () => ({
        tools: [
          tool({
            name: 'find',
            description: 'Finds an order',
            parameters: z.object({ order: orderType }),
            execute: () => 'found',
          }),
        ],
      }),
    });
    const agent = new Agent({
      name: 'a',
      instructions: 'Hi.',
      model: new ScriptedModel(script),
      tools: [tool({ name: 't', description: 'T', parameters: z.object({}), execute: () => 1 })],
      handoffs: [new Agent({ name: 'b', model: new ScriptedModel(script) })],
      outputType: z.object({ answer: z.string() }),
    });
    const bind = async () => {
      const { binding, release } = await agent.bind(new RunContext({ sessionId: 's' }));
      await release();
      return binding;
    };
    const first = await bind();
    const second = await bind();
    // The same objects: nothing was hashed or converted again for the second binding.
    expect(second.definition).toBe(first.definition);
    expect(second.storedDefinition).toBe(first.storedDefinition);
    expect(second.outputSchema).toBe(first.outputSchema);
    expect(second.tools.get('transfer_to_b')?.jsonSchema).toBe(
      first.tools.get('transfer_to_b')?.jsonSchema,
    );
    // A binding whose toolkit gives other tools is fingerprinted on its own.
    const withKit = new Agent({ name: 'k', model: new ScriptedModel(script), toolkits: [kit] });
    const bindKit = async () => (await withKit.bind(new RunContext({ sessionId: 's' }))).binding;
    const v1 = await bindKit();
    const v1Again = await bindKit();
    orderType = z.number();
    const v2 = await bindKit();
    expect(v1Again.definition).toEqual(v1.definition);
    expect(definitionChanges(v1.definition, v2.definition)).toEqual([
      { part: 'tool:find.parameters', change: 'changed' },
    ]);
  });
});

describe('compatibleWith and version', () => {
  it('compatibleWith is asked with what changed; true resumes the run, false refuses it', async () => {
    const { store, effects, paused, callId } = await pausedRefund();
    const asked: DefinitionChange[] = [];
    const strict = refunds(store, effects, {
      instructions: 'Refund orders generously.',
      modelName: 'model-b',
      compatibleWith: (change) => {
        asked.push(change);
        return change.changes.every((c) => c.part === 'instructions');
      },
    });
    const before = await dumpBackend(store);
    const error = await refusal(strict.resume(paused.state.approve(callId)));
    expect(error.changed).toEqual(['instructions', 'model']);
    expect(await dumpBackend(store)).toEqual(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      sessionId: key.sessionId,
      runId: paused.id,
      agentPath: ['refunds'],
      changes: [
        { part: 'instructions', change: 'changed' },
        { part: 'model', change: 'changed' },
      ],
    });
    expect(Object.keys(asked[0]!.stored)).toEqual([
      'instructions',
      'tool:issue_refund.parameters',
      'tool:lookup.parameters',
      'model',
      'machine',
    ]);
    expect(Object.keys(asked[0]!.current)).toEqual(Object.keys(asked[0]!.stored));
    expect(asked[0]!.stored['instructions']).not.toBe(asked[0]!.current['instructions']);
    expect(asked[0]!.stored['tool:lookup.parameters']).toBe(
      asked[0]!.current['tool:lookup.parameters'],
    );

    const lenient = refunds(store, effects, {
      instructions: 'Refund orders generously.',
      compatibleWith: ({ changes }) => changes.every((c) => c.part === 'instructions'),
    });
    const done = await lenient.resume(paused.state.approve(callId));
    expect(done.output).toBe('done: refunded 9');
    expect(effects).toEqual(['9']);
  });

  it('version replaces the instructions in the fingerprint: same version resumes, another is refused', async () => {
    const { store } = await temps.open();
    const effects: string[] = [];
    const v1 = refunds(store, effects, { version: 'refunds-1' });
    const paused = await v1.run('refund order 9', key);
    const callId = paused.interruptions[0]!.callId;
    const bumped = refunds(store, effects, { version: 'refunds-2' });
    expect((await refusal(bumped.resume(paused.state.approve(callId)))).changed).toEqual([
      'version',
    ]);
    // Reworded instructions under the same version: the app says they are the same definition.
    const reworded = refunds(store, effects, {
      version: 'refunds-1',
      instructions: 'Refund orders, politely.',
    });
    expect((await reworded.resume(paused.state.approve(callId))).interrupted).toBe(false);
    expect(effects).toEqual(['9']);
  });

  it('a new message after a run ended starts a run pinned to the agent as it is now', async () => {
    const { store, effects, paused, callId } = await pausedRefund();
    await refunds(store, effects).resume(paused.state.approve(callId));
    const v2 = refunds(store, effects, { instructions: 'Refund orders generously.' });
    const next = await v2.run('refund order 9 again', key);
    expect(next.interrupted).toBe(true);
    const nextCall = next.interruptions[0]!.callId;
    // The old definition may not resume the new run; the new one may.
    const old = await refusal(refunds(store, effects).resume(next.state.approve(nextCall)));
    expect(old.changed).toEqual(['instructions']);
    expect((await v2.resume(next.state.approve(nextCall))).interrupted).toBe(false);
  });

  it('compatibleWith and version are checked as options', () => {
    const { model } = { model: new ScriptedModel([]) };
    expect(() => new Agent({ name: 'a', model, version: '' })).toThrow(/version/);
    expect(
      () => new Agent({ name: 'a', model, compatibleWith: true as unknown as () => boolean }),
    ).toThrow(/compatibleWith/);
  });
});

describe("a sub-agent's run is pinned to the sub-agent's definition", () => {
  it('a changed sub-agent refuses the resume of its paused child run, naming its path; compatibleWith of the sub-agent lets it go on', async () => {
    const { store } = await temps.open();
    const tree = { sessionId: 'tree', userId: 'alice' };
    const v1 = triageWithBilling({ store });
    const paused = await v1.triage.run('please refund order 9', tree);
    const callId = paused.interruptions[0]!.callId;
    const children = allRuns(storedRun<RunNode>((await store.load(tree)).snapshot)).slice(1);
    expect(children).toHaveLength(1);
    const childRunId = children[0]!.context!.runId;
    expect(Object.keys(children[0]!.context!.definition ?? {})).toEqual([
      'i',
      't:lookup',
      't:refund',
      'm',
      'x',
    ]);
    const before = await dumpBackend(store);

    const changed = triageWithBilling({
      store,
      billing: { instructions: 'You handle billing, briefly.' },
    });
    const error = await refusal(changed.triage.resume(paused.state.approve(callId)));
    expect(error).toMatchObject({
      runId: childRunId,
      agentPath: ['triage', 'billing'],
      changed: ['instructions'],
    });
    expect(error.message).toContain('agent "triage > billing"');
    expect(await dumpBackend(store)).toEqual(before);
    expect(changed.seen.refunds).toEqual([]);

    // The top-level agent's compatibleWith does not speak for its sub-agent's definition.
    const parentSays = triageWithBilling({
      store,
      billing: { instructions: 'You handle billing, briefly.' },
      triage: { compatibleWith: () => true },
    });
    await refusal(parentSays.triage.resume(paused.state.approve(callId)));

    const declared = triageWithBilling({
      store,
      billing: {
        instructions: 'You handle billing, briefly.',
        compatibleWith: ({ agentPath }) => agentPath.join('/') === 'triage/billing',
      },
    });
    const done = await declared.triage.resume(paused.state.approve(callId));
    expect(done.interrupted).toBe(false);
    expect(declared.seen.refunds).toEqual(['9']);
  });
});

describe('the scheduler and recover hit the same check', () => {
  it("a changed agent's scheduler leaves a due deadline as stored and reports the refusal once", async () => {
    const { store } = await temps.open();
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const effects: string[] = [];
    const paused = await refunds(store, effects, { clock, approvalTimeoutMs: 60_000 }).run(
      'refund order 9',
      key,
    );
    expect(paused.interrupted).toBe(true);
    clock.advance(60_000);
    const before = await dumpBackend(store);
    const errors: unknown[] = [];
    const v2 = refunds(store, effects, {
      clock,
      approvalTimeoutMs: 60_000,
      instructions: 'Refund orders generously.',
    });
    const scheduler = v2.startScheduler({ onError: (e) => errors.push(e) });
    try {
      for (let i = 0; i < 5000 && errors.length === 0; i++) await zeroTimeout();
      // A pass over the due entry, then it waits (no later deadline): reported once.
      for (let i = 0; i < 200; i++) await zeroTimeout();
    } finally {
      await scheduler.stop();
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(DefinitionChangedError);
    expect(await dumpBackend(store)).toEqual(before);
  });

  it('recover of a run in flight at a crash by a changed agent returns the refusal; the run stays as stored', async () => {
    const storeClock = new FakeClock(Date.UTC(2026, 0, 1));
    const { store } = await temps.open({ clock: storeClock });
    const gate = deferred();
    let calls = 0;
    const hungModel = new ScriptedModel(
      async () => {
        calls += 1;
        await gate.promise;
        return { text: 'late' };
      },
      { name: 'model-a' },
    );
    const process = (owner: string, clock: FakeClock, change: Parameters<typeof refunds>[2]) =>
      refunds(store, [], { clock, lease: { owner, ttlMs: 10_000 }, ...change });
    // The first process stops renewing its lease (its clock never moves): it hung.
    const hung = process('p1', new FakeClock(storeClock.now()), { model: hungModel });
    const running = hung.run('refund order 9', key);
    for (let i = 0; i < 5000 && calls === 0; i++) await zeroTimeout();
    storeClock.advance(10_001);
    const before = await dumpBackend(store);

    const changed = process('p2', storeClock, { instructions: 'Refund orders generously.' });
    const recovered = await changed.runtimeFor(store).recover({ olderThan: 0, userId: 'alice' });
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.error).toBeInstanceOf(DefinitionChangedError);
    expect((recovered[0]!.error as DefinitionChangedError).changed).toEqual(['instructions']);
    expect(await dumpBackend(store)).toEqual(before);

    // The run shows crashed; a process whose agent is defined as the run's resumes it.
    const view = await changed.runtimeFor(store).getSession(key);
    expect(view.runStatus?.status).toBe('crashed');
    const same = process('p3', storeClock, {});
    const resumed = await same.resume(key.sessionId, { userId: key.userId });
    expect(resumed.interruptions.map((i) => i.toolName)).toEqual(['issue_refund']);
    gate.resolve();
    await running.catch(() => undefined); // its late write is fenced
  });
});
