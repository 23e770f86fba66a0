import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidSessionTransitionError,
  SessionNotFoundError,
  changeModel,
  changeSystemPrompt,
  clearSession,
  completeSession,
  deleteSession,
  forkSession,
  resumeSession,
  sendMessage,
  suspendSession,
  updateTask,
  writeMetadata,
  type SessionRuntime,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import {
  alice,
  callTool,
  lastUserText,
  texts,
  assistantSetup,
} from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const setup = (model?: ScriptedModel) => assistantSetup(temps, model, 'Be brief.');

async function expectRefused(
  runtime: SessionRuntime,
  act: () => Promise<unknown>,
  sessionId: string,
) {
  const before = await runtime.store.load(alice(sessionId));
  const error = await act().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidSessionTransitionError);
  expect(error).toMatchObject({ code: 'INVALID_SESSION_TRANSITION' });
  expect(await runtime.store.load(alice(sessionId))).toEqual(before);
}

describe('session machine through actions', () => {
  it('sendMessage creates the session and leaves it idle with the turn in its history', async () => {
    const { runtime, store } = await setup();
    const result = await runtime.execute(alice('s'), sendMessage('hello'));
    expect(result.output).toBe('reply: hello');
    const view = await runtime.getSession(alice('s'));
    expect(view).toMatchObject({
      state: 'active.idle',
      status: 'active',
      historyLength: 2,
      run: undefined,
    });
    expect(texts(await store.readHistory(alice('s')))).toEqual(['hello', 'reply: hello']);
  });

  it('refuses a message to a suspended session and saves nothing; resumeSession reactivates it', async () => {
    const { runtime, model } = await setup();
    await runtime.execute(alice('s'), sendMessage('hello'));
    await runtime.execute(alice('s'), suspendSession());
    expect(await runtime.getSessionInfo(alice('s'))).toMatchObject({ status: 'suspended' });
    const calls = model.calls.length;
    await expectRefused(
      runtime,
      () => runtime.execute(alice('s'), sendMessage('are you there?')),
      's',
    );
    expect(model.calls.length).toBe(calls);

    await runtime.execute(alice('s'), resumeSession());
    expect((await runtime.getSession(alice('s'))).state).toBe('active.idle');
    const again = await runtime.execute(alice('s'), sendMessage('back again'));
    expect(again.output).toBe('reply: back again');
  });

  it('refuses to resume a completed session', async () => {
    const { runtime } = await setup();
    await runtime.execute(alice('s'), sendMessage('hello'));
    await runtime.execute(alice('s'), completeSession());
    expect(await runtime.getSessionInfo(alice('s'))).toMatchObject({ status: 'completed' });
    await expectRefused(runtime, () => runtime.execute(alice('s'), resumeSession()), 's');
    await expectRefused(runtime, () => runtime.execute(alice('s'), sendMessage('more')), 's');
  });

  it('deleteSession leaves a tombstone that refuses every further action', async () => {
    const { runtime, store } = await setup();
    await runtime.execute(alice('s'), sendMessage('hello'));
    await runtime.execute(alice('s'), deleteSession());
    expect(await runtime.getSessionInfo(alice('s'))).toMatchObject({
      status: 'deleted',
      historyLength: 2,
    });
    expect((await runtime.getSession(alice('s'))).state).toBe('deleted');
    expect(await store.readHistory(alice('s'))).toHaveLength(2);
    await expectRefused(runtime, () => runtime.execute(alice('s'), sendMessage('hello?')), 's');
    await expectRefused(runtime, () => runtime.execute(alice('s'), resumeSession()), 's');
    await expectRefused(runtime, () => runtime.execute(alice('s'), writeMetadata({ a: 1 })), 's');
    await expectRefused(runtime, () => runtime.execute(alice('s'), forkSession('copy')), 's');
    const listed = await runtime.listSessions({ userId: 'alice', status: 'deleted' });
    expect(listed.sessions.map((s) => s.sessionId)).toEqual(['s']);
  });

  it('deleteSession on a tombstone is refused (nothing sent to the finished actor); purge still removes it', async () => {
    const { runtime, store } = await setup();
    await runtime.execute(alice('s'), sendMessage('hello'));
    await runtime.execute(alice('s'), deleteSession());
    const warnings: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args);
    try {
      await expectRefused(runtime, () => runtime.execute(alice('s'), deleteSession()), 's');
    } finally {
      console.warn = warn;
    }
    expect(warnings).toEqual([]);
    await runtime.execute(alice('s'), deleteSession({ purge: true }));
    await expect(store.load(alice('s'))).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('deleteSession({ purge: true }) removes the record and its history', async () => {
    const { runtime, store } = await setup();
    await runtime.execute(alice('s'), sendMessage('hello'));
    await runtime.execute(alice('s'), deleteSession({ purge: true }));
    await expect(runtime.getSession(alice('s'))).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(runtime.getSessionInfo(alice('s'))).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    await expect(store.readHistory(alice('s'))).rejects.toBeInstanceOf(SessionNotFoundError);
    expect((await runtime.listSessions({ userId: 'alice' })).sessions).toEqual([]);
  });

  it('persists the run snapshot nested in the session snapshot during an approval pause', async () => {
    const { runtime, store } = await setup(
      new ScriptedModel([callTool('danger'), { text: 'all done' }], { recordCalls: true }),
    );
    const paused = await runtime.execute(alice('s'), sendMessage('do it'));
    expect(paused).toMatchObject({ interrupted: true, interruptionReason: 'approval' });
    const record = await store.load(alice('s'));
    const snapshot = record.snapshot as {
      value: unknown;
      children: Record<string, { snapshot: { value: unknown } }>;
    };
    expect(snapshot.value).toEqual({ active: 'running' });
    expect(snapshot.children.run?.snapshot.value).toBe('awaitingApproval');
    const view = await runtime.getSession(alice('s'));
    expect(view.run?.state).toBe('awaitingApproval');
    expect(view.run?.context.calls[0]).toMatchObject({ name: 'danger', needsApproval: true });
    // a lifecycle action cannot skip past the paused run
    await expectRefused(runtime, () => runtime.execute(alice('s'), suspendSession()), 's');
  });
});

describe('configuration actions', () => {
  it('changeModel and changeSystemPrompt shape the next model request', async () => {
    const { runtime, model } = await setup();
    await runtime.execute(alice('s'), sendMessage('first'));
    expect(model.calls[0]).toMatchObject({ instructions: 'Be brief.' });
    expect(model.calls[0]?.model).toBeUndefined();
    await runtime.execute(alice('s'), changeModel('gpt-4o-mini'));
    await runtime.execute(alice('s'), changeSystemPrompt('Answer in French.'));
    await runtime.execute(alice('s'), sendMessage('second'));
    expect(model.calls[1]).toMatchObject({
      model: 'gpt-4o-mini',
      instructions: 'Answer in French.',
    });
    expect((await runtime.getSession(alice('s'))).config).toMatchObject({
      model: 'gpt-4o-mini',
      systemPrompt: 'Answer in French.',
    });
  });

  it('writeMetadata merges and removes keys; updateTask records the task', async () => {
    const { runtime } = await setup();
    await runtime.execute(alice('s'), sendMessage('hi'));
    await runtime.execute(alice('s'), writeMetadata({ topic: 'travel', draft: true }));
    await runtime.execute(alice('s'), writeMetadata({ draft: undefined, lang: 'en' }));
    await runtime.execute(alice('s'), updateTask({ goal: 'book a flight', step: 2 }));
    const { config } = await runtime.getSession(alice('s'));
    expect(config.metadata).toEqual({ topic: 'travel', lang: 'en' });
    expect(config.task).toEqual({ goal: 'book a flight', step: 2 });
  });

  it('clearSession: the next run does not send earlier items (history is kept)', async () => {
    const { runtime, model, store } = await setup();
    await runtime.execute(alice('s'), sendMessage('secret plan'));
    await runtime.execute(alice('s'), clearSession());
    await runtime.execute(alice('s'), sendMessage('fresh start'));
    const request = model.calls[1]!;
    expect(texts(request.items)).toEqual(['fresh start']);
    expect(JSON.stringify(request.items)).not.toContain('secret plan');
    expect(texts(await store.readHistory(alice('s')))).toEqual([
      'secret plan',
      'reply: secret plan',
      'fresh start',
      'reply: fresh start',
    ]);
  });

  it('forkSession copies history and settings with a parent link; the two then diverge', async () => {
    const { runtime, model } = await setup();
    await runtime.execute(alice('main'), sendMessage('shared start'));
    await runtime.execute(alice('main'), changeSystemPrompt('Forked prompt'));
    const parentBefore = await runtime.store.load(alice('main'));
    const info = await runtime.execute(alice('main'), forkSession('branch'));
    expect(await runtime.store.load(alice('main'))).toEqual(parentBefore); // the parent is not changed
    expect(info).toMatchObject({
      sessionId: 'branch',
      userId: 'alice',
      parentId: 'main',
      historyLength: 2,
      version: 1,
    });
    expect((await runtime.getSession(alice('branch'))).config.systemPrompt).toBe('Forked prompt');

    await runtime.execute(alice('branch'), sendMessage('only in the branch'));
    expect(lastUserText(model.calls.at(-1)!)).toBe('only in the branch');
    expect(texts(model.calls.at(-1)!.items)).toContain('shared start');
    await runtime.execute(alice('main'), sendMessage('only in main'));
    const mainRequest = model.calls.at(-1)!;
    expect(texts(mainRequest.items)).toEqual([
      'shared start',
      'reply: shared start',
      'only in main',
    ]);

    const branchHistory = texts(await runtime.store.readHistory(alice('branch')));
    expect(branchHistory).toEqual([
      'shared start',
      'reply: shared start',
      'only in the branch',
      'reply: only in the branch',
    ]);
    expect(branchHistory).not.toContain('only in main');
    expect((await runtime.getSessionInfo(alice('main'))).parentId).toBeUndefined();
  });
});
