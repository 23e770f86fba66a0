import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  CallNotInDoubtError,
  LevelSessionStore,
  tool,
  type InDoubtResolution,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';
import {
  crashWhilePaying,
  key,
  payModel,
  payTool,
  reopenedPayer,
} from '../helpers/in-doubt-payment.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const ask = { onInterrupted: 'ask' } as const;
const as = { userId: key.userId, by: 'ops' };

/** A run crashed while `pay` ran, resumed by a fresh agent: paused, its call in doubt. */
async function pausedInDoubt(options: Parameters<typeof crashWhilePaying>[1] = ask) {
  const path = await crashWhilePaying(temps, options);
  const payer = await reopenedPayer(temps, path, options);
  const paused = await payer.agent.resume(key.sessionId, { userId: key.userId });
  return { ...payer, paused };
}

describe("onInterrupted 'ask': a call in doubt waits for an operator", () => {
  it('the restored run pauses with interruption in_doubt, stored and shown by getSession; a resume changes nothing', async () => {
    const { agent, store, charges, entry, paused } = await pausedInDoubt();
    expect(charges).toEqual([]);
    expect(paused).toMatchObject({ interrupted: true, interruptionReason: 'in_doubt' });
    const inDoubt = [
      { callId: 'c1', toolName: 'pay', arguments: { amount: 5 }, agent: 'payer', runId: paused.id },
    ];
    expect(paused.callsInDoubt).toEqual(inDoubt);
    expect(await entry(paused.id)).toBeUndefined(); // nothing journaled for the call yet
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.runStatus).toMatchObject({
      status: 'interrupted',
      interruption: 'in_doubt',
      callsInDoubt: inDoubt,
    });
    // Another process (a fresh agent on the store) finds it paused, and a resume leaves it so.
    const again = await new Agent({ ...agent.options, name: 'payer' }).resume(key.sessionId, {
      userId: key.userId,
      store,
    });
    expect(again).toMatchObject({ interruptionReason: 'in_doubt', callsInDoubt: inDoubt });
    expect(charges).toEqual([]);
  });

  it("'result' records the operator's result without running the call; journaled and audited", async () => {
    const { agent, store, charges, entry, paused } = await pausedInDoubt();
    const result = await agent.resolveInDoubt(
      key.sessionId,
      { callId: 'c1', action: 'result', result: { charge: 'ch_1' } },
      as,
    );
    expect(result.interrupted).toBe(false);
    expect(result.output).toBe('ok: {"charge":"ch_1"}');
    expect(charges).toEqual([]);
    expect((await entry(paused.id))?.output).toMatchObject({
      isError: false,
      inDoubt: { resolution: 'recorded', operator: { action: 'result', by: 'ops' } },
    });
    const audit = await store.readAudit({ userId: key.userId, kind: 'in_doubt' });
    expect(audit.entries).toEqual([
      expect.objectContaining({
        kind: 'in_doubt',
        tool: 'pay',
        callId: 'c1',
        by: 'ops',
        via: 'api',
        runId: paused.id,
        summary: 'pay in doubt resolved with a result given by ops',
      }),
    ]);
    expect(JSON.stringify(audit.entries)).not.toContain('ch_1');
  });

  it("'retry' runs the call again with the same call id", async () => {
    const { agent, charges, entry, paused } = await pausedInDoubt();
    const result = await agent.resolveInDoubt(key.sessionId, { callId: 'c1', action: 'retry' }, as);
    expect(charges).toEqual(['c1']);
    expect(result.output).toBe('ok: charged c1');
    expect((await entry(paused.id))?.output).toMatchObject({
      inDoubt: { resolution: 'retried', operator: { action: 'retry', by: 'ops' } },
    });
  });

  it("'fail' gives the model the unknown-outcome error without running the call", async () => {
    const { agent, charges, entry, paused } = await pausedInDoubt();
    const result = await agent.resolveInDoubt(key.sessionId, { callId: 'c1', action: 'fail' }, as);
    expect(charges).toEqual([]);
    expect(result.output).toMatch(
      /^error: Error: the outcome of this call of tool "pay" is unknown/,
    );
    expect((await entry(paused.id))?.output).toMatchObject({
      isError: true,
      inDoubt: { resolution: 'failed', operator: { action: 'fail' } },
    });
  });

  it("an operator's 'retry' cut off by another crash is in doubt again: the run asks again", async () => {
    const { store, paused } = await pausedInDoubt();
    await store.close();
    let crashed = false;
    const cut = await LevelSessionStore.open({
      path: store.path,
      onBatchOp: () => {
        if (crashed) throw new Error('power cut');
      },
    });
    const second: string[] = [];
    const agent = new Agent({
      name: 'payer',
      model: payModel(),
      store: cut,
      tools: [
        payTool(second, ask, () => {
          crashed = true;
          return Promise.resolve();
        }),
      ],
    });
    await expect(
      agent.resolveInDoubt(key.sessionId, { callId: 'c1', action: 'retry' }, as),
    ).rejects.toMatchObject({ code: 'SESSION_SAVE_FAILED' });
    expect(second).toEqual(['c1']);
    await cut.close();
    const again = await reopenedPayer(temps, store.path, ask);
    const asked = await again.agent.resume(key.sessionId, { userId: key.userId });
    expect(asked).toMatchObject({ interruptionReason: 'in_doubt', id: paused.id });
    expect(asked.callsInDoubt?.map((c) => c.callId)).toEqual(['c1']);
    expect(again.charges).toEqual([]);
  });

  it("a sub-agent's call in doubt pauses the run tree; resolved by its call id, the sub-agent and its parent go on", async () => {
    const temp = await temps.open();
    await temp.store.close();
    let crashed = false;
    const agents = (store: LevelSessionStore, charges: string[], crash: boolean) => {
      const child = new Agent({
        name: 'cashier',
        model: payModel(),
        tools: [
          payTool(charges, ask, crash ? () => Promise.resolve(void (crashed = true)) : undefined),
        ],
      });
      return new Agent({
        name: 'desk',
        store,
        model: new ScriptedModel((request) => {
          const result = request.items.find((i) => i.type === 'tool_result');
          if (!result)
            return {
              toolCalls: [{ name: 'ask_cashier', arguments: { input: 'pay 5' }, callId: 'd1' }],
            };
          return { text: `desk: ${result.output}` };
        }),
        tools: [child.asTool({ name: 'ask_cashier', description: 'Pays' })],
      });
    };
    const cut = await LevelSessionStore.open({
      path: temp.path,
      onBatchOp: () => {
        if (crashed) throw new Error('power cut');
      },
    });
    const first: string[] = [];
    await expect(agents(cut, first, true).run('pay', key)).rejects.toMatchObject({
      code: 'SESSION_SAVE_FAILED',
    });
    expect(first).toEqual(['c1']);
    await cut.close();

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const charges: string[] = [];
    const desk = agents(store, charges, false);
    const paused = await desk.resume(key.sessionId, { userId: key.userId });
    expect(paused.interruptionReason).toBe('in_doubt');
    expect(paused.callsInDoubt).toEqual([
      expect.objectContaining({ callId: 'c1', toolName: 'pay', agentPath: ['desk', 'cashier'] }),
    ]);
    const done = await desk.resolveInDoubt(
      key.sessionId,
      { callId: 'c1', action: 'result', result: 'paid earlier' },
      as,
    );
    expect(done.output).toBe('desk: ok: paid earlier');
    expect(charges).toEqual([]);
  });

  it('a reconcile that cannot tell leaves the call to the operator, saying what it answered', async () => {
    const { charges, paused } = await pausedInDoubt({ ...ask, reconcile: () => 'unknown' });
    expect(charges).toEqual([]);
    expect(paused.callsInDoubt).toEqual([
      expect.objectContaining({ callId: 'c1', reconcile: 'unknown' }),
    ]);
  });

  it('bad input gets a typed error and changes nothing stored', async () => {
    const { agent, store, charges } = await pausedInDoubt();
    const before = await store.load(key);
    const audit = await store.readAudit({ userId: key.userId });
    const resolve = (r: unknown, options: object = as) =>
      agent.resolveInDoubt(key.sessionId, r as InDoubtResolution, options);
    await expect(resolve({ callId: 'nope', action: 'fail' })).rejects.toBeInstanceOf(
      CallNotInDoubtError,
    );
    await expect(resolve({ callId: 'c1', action: 'fail', runId: 'other' })).rejects.toMatchObject({
      code: 'NOT_IN_DOUBT',
    });
    await expect(
      resolve({ callId: 'c1', action: 'fail' }, { userId: 'mallory' }),
    ).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(() => resolve({ callId: 'c1', action: 'maybe' })).toThrow(
      /"resolution\.action" must be 'retry', 'result' or 'fail'/,
    );
    expect(() => resolve({ callId: 'c1', action: 'result' })).toThrow(/result must be plain JSON/);
    expect(() => resolve({ callId: 'c1', action: 'fail', result: 1 })).toThrow(/only for action/);
    expect(() => resolve({ action: 'fail' })).toThrow(/callId/);
    expect(() =>
      resolve({ callId: 'c1', action: 'fail' }, { userId: key.userId, nope: 1 }),
    ).toThrow(/unknown option "nope"/);
    expect(await store.load(key)).toEqual(before);
    expect(await store.readAudit({ userId: key.userId })).toEqual(audit);
    expect(charges).toEqual([]);
    // Resolved once, the call no longer waits: the run is over.
    await resolve({ callId: 'c1', action: 'fail' });
    await expect(resolve({ callId: 'c1', action: 'fail' })).rejects.toMatchObject({
      code: 'NOTHING_TO_RESUME',
    });
  });

  it('a run paused for an approval is not in doubt', async () => {
    const { store } = await temps.open();
    const send = tool({
      name: 'send',
      description: 'Sends',
      parameters: z.object({}),
      needsApproval: true,
      execute: () => 'sent',
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'send', arguments: {}, callId: 's1' }] },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'sender', model, store, tools: [send] });
    await agent.run('send', key);
    const before = await store.load(key);
    await expect(
      agent.resolveInDoubt(key.sessionId, { callId: 's1', action: 'retry' }, as),
    ).rejects.toThrow(/No tool call "s1" is in doubt.*not paused in doubt \(awaitingApproval\)/);
    expect(await store.load(key)).toEqual(before);
  });
});
