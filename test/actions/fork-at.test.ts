import { afterEach, describe, expect, it } from 'vitest';
import {
  ForkPositionError,
  continueRun,
  SessionNotFoundError,
  forkSession,
  sendMessage,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { alice, assistantSetup, bob, echoModel, texts } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** Echo answers, but a message "danger" makes the model call the approval-gated tool. */
function dangerOrEcho(): ScriptedModel {
  const echo = echoModel();
  return new ScriptedModel(
    (request, index) => {
      const last = request.items.at(-1);
      if (last?.type === 'message' && last.content === 'danger') {
        return { toolCalls: [{ name: 'danger', arguments: {}, callId: 'c-danger' }] };
      }
      return echo.generate(request).then((r) => ({ text: `${r.text ?? ''} (${index})` }));
    },
    { recordCalls: true },
  );
}

async function threeTurns() {
  const setup = await assistantSetup(temps, dangerOrEcho());
  for (const text of ['one', 'two', 'three']) {
    await setup.runtime.execute(alice('main'), sendMessage(text));
  }
  return setup;
}

describe('forkSession({ at }): time travel', () => {
  it('gives the fork items [0, at) and leaves the parent unchanged', async () => {
    const { runtime, store, model } = await threeTurns();
    const before = await store.load(alice('main'));
    const info = await runtime.execute(alice('main'), forkSession('back', { at: 2 }));
    expect(info).toMatchObject({ sessionId: 'back', userId: 'alice', parentId: 'main' });
    expect(info.historyLength).toBe(2);
    expect(await store.load(alice('main'))).toEqual(before);
    expect(texts(await store.readHistory(alice('back')))).toEqual(['one', 'reply: one (0)']);

    await runtime.execute(alice('back'), sendMessage('other two'));
    expect(texts(model.calls.at(-1)!.items)).toEqual(['one', 'reply: one (0)', 'other two']);
    expect(texts(await store.readHistory(alice('main')))).toHaveLength(6);

    const empty = await runtime.execute(alice('main'), forkSession('blank', { at: 0 }));
    expect(empty.historyLength).toBe(0);
    const whole = await runtime.execute(alice('main'), forkSession('whole'));
    expect(whole.historyLength).toBe(6);
  });

  it('refuses a bad position with a TypeError at the call', () => {
    for (const at of [-1, 1.5, Number.NaN, '2', Number.POSITIVE_INFINITY]) {
      expect(() => forkSession('x', { at: at as number })).toThrow(TypeError);
      expect(() => forkSession('x', { at: at as number })).toThrow(/option "at"/);
    }
    expect(() => forkSession('x', { position: 1 } as never)).toThrow(/unknown option "position"/);
  });

  it('a position past the history is ForkPositionError and creates nothing', async () => {
    const { runtime, store } = await threeTurns();
    const error = await runtime
      .execute(alice('main'), forkSession('far', { at: 7 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForkPositionError);
    expect(error).toMatchObject({ code: 'FORK_POSITION_OUT_OF_RANGE', at: 7, limit: 6 });
    await expect(store.load(alice('far'))).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('a paused run is not carried: the fork ends before its input', async () => {
    const { runtime, store } = await threeTurns();
    const paused = await runtime.execute(alice('main'), sendMessage('danger'));
    expect(paused.interrupted).toBe(true);
    const length = (await store.load(alice('main'))).historyLength;
    expect(length).toBe(8); // the input and the pending tool call
    const before = await store.load(alice('main'));

    const fork = await runtime.execute(alice('main'), forkSession('calm'));
    expect(fork.historyLength).toBe(6);
    const view = await runtime.getSession(alice('calm'));
    expect(view).toMatchObject({ state: 'active.idle', run: undefined });
    for (const at of [7, 8]) {
      const error = await runtime
        .execute(alice('main'), forkSession(`mid-${at}`, { at }))
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'FORK_POSITION_OUT_OF_RANGE', limit: 6 });
      expect((error as Error).message).toMatch(/paused run/);
    }
    expect(await store.load(alice('main'))).toEqual(before);
    await runtime.execute(alice('calm'), sendMessage('four'));
    expect(texts(await store.readHistory(alice('calm'))).at(-2)).toBe('four');
  });

  it('refuses a position between a tool call and its result', async () => {
    const { runtime, store } = await threeTurns();
    await runtime.execute(alice('main'), sendMessage('danger'));
    await runtime.execute(
      alice('main'),
      continueRun({ decisions: [{ callId: 'c-danger', approve: true }] }),
    );
    const items = await store.readHistory(alice('main'));
    expect(items.map((i) => i.type).slice(6)).toEqual([
      'message',
      'tool_call',
      'tool_result',
      'message',
    ]);
    const error = await runtime
      .execute(alice('main'), forkSession('split', { at: 8 }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForkPositionError);
    expect((error as Error).message).toMatch(/tool call at 7 would lose its result/);
    await expect(store.load(alice('split'))).rejects.toBeInstanceOf(SessionNotFoundError);
    expect((await runtime.execute(alice('main'), forkSession('ok', { at: 9 }))).historyLength).toBe(
      9,
    );
    expect(
      (await runtime.execute(alice('main'), forkSession('ok7', { at: 7 }))).historyLength,
    ).toBe(7);
  });

  it("forks only the caller's own session", async () => {
    const { runtime } = await threeTurns();
    await expect(
      runtime.execute(bob('main'), forkSession('stolen', { at: 1 })),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    expect((await runtime.execute(alice('main'), forkSession('mine', { at: 1 }))).userId).toBe(
      'alice',
    );
  });
});
