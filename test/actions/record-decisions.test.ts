import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  NothingToResumeError,
  UnknownCallError,
  sendMessage,
  SessionRuntime,
} from '../../src/index.js';
import { recordDecisions } from '../../src/actions/record-decisions.js';
import { ScriptedModel } from '../../src/testing.js';
import { alice, callTool } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { dangerTool } from '../helpers/session-fixtures.js';
import type { SessionStore } from '../../src/index.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A runtime like the command line's: the store, but none of the app's tools. */
function toollessRuntime(store: SessionStore): SessionRuntime {
  const model = new ScriptedModel([]);
  return new SessionRuntime({ store, agent: new Agent({ name: 'cli', model, store }) });
}

describe('recordDecisions: a decision recorded without running the calls', () => {
  it('holds the approved call until the app resumes; then the app runs it', async () => {
    const { store } = await temps.open();
    let runs = 0;
    const danger = { ...dangerTool, execute: () => `done ${++runs}` } as typeof dangerTool;
    const model = new ScriptedModel([callTool('danger'), { text: 'finished' }]);
    const app = new Agent({ name: 'assistant', model, store, tools: [danger] });
    const paused = await app.run('go', alice('s'));
    const callId = paused.interruptions[0]!.callId;

    await toollessRuntime(store).execute(
      alice('s'),
      recordDecisions([{ callId, approve: true }], { by: 'oncall', via: 'cli' }),
    );
    expect(runs).toBe(0);
    const audit = await app.runtimeFor(store).auditLog({ userId: 'alice', kind: 'approval' });
    expect(audit.entries.map((e) => [e.summary, e.by, e.via])).toEqual([
      ['danger approved by oncall', 'oncall', 'cli'],
    ]);
    const view = await app.runtimeFor(store).getSession(alice('s'));
    expect(view.run).toMatchObject({ state: 'awaitingApproval' });
    expect(view.run!.context.held).toBe(true);
    expect(view.run!.context.calls[0]).toMatchObject({ decision: 'approved', reason: 'user' });

    const result = await app.resume('s', { userId: 'alice' });
    expect(runs).toBe(1);
    expect(result.output).toBe('finished');
  });

  it("a sub-agent's call is found by its id; a rejection's message reaches the model", async () => {
    const { store } = await temps.open();
    const { triage, seen, billingModel } = triageWithBilling({ store });
    const paused = await triage.run('please refund order 9', alice('r'));
    const callId = paused.interruptions[0]!.callId;
    await toollessRuntime(store).execute(
      alice('r'),
      recordDecisions([{ callId, approve: false, message: 'not today' }]),
    );
    expect(seen.refunds).toEqual([]);
    await triage.resume('r', { userId: 'alice' });
    expect(seen.refunds).toEqual([]);
    const lastRequest = billingModel.calls.at(-1)!;
    expect(JSON.stringify(lastRequest.items)).toContain('not today');
  });

  it('refuses an unknown call or a session without a paused run, changing nothing', async () => {
    const { store } = await temps.open();
    const model = new ScriptedModel([callTool('danger'), { text: 'x' }]);
    const app = new Agent({ name: 'assistant', model, store, tools: [dangerTool] });
    await app.run('go', alice('s'));
    const before = await store.load(alice('s'));
    const cli = toollessRuntime(store);
    await expect(
      cli.execute(alice('s'), recordDecisions([{ callId: 'nope', approve: true }])),
    ).rejects.toBeInstanceOf(UnknownCallError);
    expect(await store.load(alice('s'))).toEqual(before);
    await new Agent({ name: 'e', model: new ScriptedModel([{ text: 'hi' }]), store })
      .runtimeFor(store)
      .execute(alice('idle'), sendMessage('hi'));
    await expect(
      cli.execute(alice('idle'), recordDecisions([{ callId: 'x', approve: true }])),
    ).rejects.toBeInstanceOf(NothingToResumeError);
  });
});
