import { createWebSocketInspector } from '@statelyai/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, setup, waitFor, type InspectionEvent } from 'xstate';
import { SessionRuntime, continueRun, type SessionKey } from '../../src/index.js';
import { MemorySessionStore } from '../../src/testing.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { relayListener, startWsRelay } from '../helpers/ws-relay.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** The `src` names of the actors an inspector saw created, in order (the root: `session`). */
function actorSources(events: InspectionEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type !== '@xstate.actor') return [];
    const src = (e.actorRef as { src?: unknown }).src;
    return [typeof src === 'string' ? src : 'session'];
  });
}

const task = 'please refund order o-1';

describe('the inspect option', () => {
  it("sees the session, run, step and sub-agent actors of an agent's run, with events and snapshots", async () => {
    const events: InspectionEvent[] = [];
    const store = new MemorySessionStore();
    const { triage } = triageWithBilling({ store, triage: { inspect: (e) => events.push(e) } });
    const paused = await triage.run(task, { sessionId: 's1', userId: 'ann' });
    expect(paused.interrupted).toBe(true);
    const sources = actorSources(events);
    expect(sources.slice(0, 3)).toEqual(['session', 'run', 'modelStep']);
    expect(sources).toContain('subRun');
    expect(sources).toContain('toolCall');
    expect(sources).toContain('approvalCheck');
    const types = new Set(events.map((e) => e.type));
    expect([...types]).toEqual(expect.arrayContaining(['@xstate.event', '@xstate.snapshot']));
    // the sub-agent's run is a child of the session's run actor: one system, one root
    const roots = new Set(events.map((e) => e.rootId));
    expect(roots.size).toBe(1);
    const snapshots = events.filter((e) => e.type === '@xstate.snapshot');
    const lastRun = snapshots
      .map((e) => e.snapshot as { value?: unknown; context?: { agentPath?: string[] } })
      .filter((s) => s.context?.agentPath?.[1] === 'billing')
      .at(-1);
    expect(lastRun?.value).toBe('awaitingApproval');
  });

  it('sees a stored snapshot restored from LevelDB in a new runtime, which then finishes the run', async () => {
    const temp = await temps.open();
    const first = triageWithBilling({ store: temp.store });
    const paused = await first.triage.run(task, { sessionId: 's2', userId: 'ann' });
    const callId = paused.interruptions[0]!.callId;
    const events: InspectionEvent[] = [];
    const second = triageWithBilling({ store: temp.store });
    const runtime = new SessionRuntime({
      store: temp.store,
      agent: second.triage,
      inspect: { next: (e) => events.push(e) },
    });
    const done = await runtime.execute(
      { sessionId: 's2', userId: 'ann' },
      continueRun({
        decisions: [{ callId, approve: true, runId: paused.interruptions[0]!.runId }],
      }),
    );
    expect(done.interrupted).toBe(false);
    expect(done.output).toContain('refunded');
    const sources = actorSources(events);
    // restored: the session, its run, the sub-agent run and its durable timer come back first
    expect(sources.slice(0, 3)).toEqual(['session', 'run', 'subRun']);
    expect(sources).toContain('toolCall');
    const restoredError = events.some(
      (e) =>
        e.type === '@xstate.snapshot' && (e.snapshot as { status?: string }).status === 'error',
    );
    expect(restoredError).toBe(false);
  });

  it("runtime.on('Inspection') gets each event with its session's key, only while listening", async () => {
    const store = new MemorySessionStore();
    const { triage } = triageWithBilling({ store });
    const runtime = triage.runtimeFor(store);
    const seen: { key: SessionKey; type: string }[] = [];
    const off = runtime.on('Inspection', ({ key, event }) => seen.push({ key, type: event.type }));
    await triage.run(task, { sessionId: 's3', userId: 'bob' });
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.every((s) => s.key.sessionId === 's3' && s.key.userId === 'bob')).toBe(true);
    off();
    const before = seen.length;
    await triage.run('order o-2?', { sessionId: 's4', userId: 'bob' });
    expect(seen.length).toBe(before);
  });

  it("agent.asActor({ inspect }) inspects the run's actors inside an app's machine", async () => {
    const events: InspectionEvent[] = [];
    const store = new MemorySessionStore();
    const { triage } = triageWithBilling({ store });
    const app = setup({
      actors: { assistant: triage.asActor({ store, inspect: (e) => events.push(e) }) },
    }).createMachine({
      invoke: { src: 'assistant', input: { input: 'order o-3 status?', userId: 'cy' } },
    });
    const actor = createActor(app).start();
    const child = () =>
      actor.getSnapshot().children['0.(machine)'] ?? Object.values(actor.getSnapshot().children)[0];
    await waitFor(child()!, (s: { status: string }) => s.status === 'done');
    expect(actorSources(events)).toEqual(expect.arrayContaining(['session', 'run', 'subRun']));
    expect(() => triage.asActor({ inspect: 'yes' as never })).toThrow(/option "inspect"/);
  });

  it('rejects an inspect option that is not an observer, naming it', () => {
    const store = new MemorySessionStore();
    expect(() => triageWithBilling({ store, triage: { inspect: 42 as never } })).toThrow(
      /new Agent\(\): option "inspect" must be a function or an observer/,
    );
    const { triage } = triageWithBilling({ store });
    expect(
      () => new SessionRuntime({ store, agent: triage, inspect: { next: 'no' } as never }),
    ).toThrow(/new SessionRuntime\(\): option "inspect"/);
  });

  it("@statelyai/inspect's WebSocket inspector sends actor, event and snapshot frames of a real run to a relay on 127.0.0.1", async () => {
    const relay = await startWsRelay();
    const listener = await relayListener(relay.url);
    const inspector = createWebSocketInspector({ url: relay.url });
    try {
      const store = new MemorySessionStore();
      const { triage } = triageWithBilling({ store, triage: { inspect: inspector.inspect } });
      const result = await triage.run('order o-4 status?', { sessionId: 's5', userId: 'dee' });
      expect(result.interrupted).toBe(false);
      await listener.until((frames) =>
        frames.some(
          (f) =>
            f['type'] === '@xstate.snapshot' &&
            (f['snapshot'] as { value?: unknown } | undefined)?.value === 'completed',
        ),
      );
      const types = new Set(listener.frames.map((f) => f['type']));
      expect([...types]).toEqual(
        expect.arrayContaining(['@xstate.actor', '@xstate.event', '@xstate.snapshot']),
      );
      const actorFrames = listener.frames.filter((f) => f['type'] === '@xstate.actor');
      expect(actorFrames.length).toBeGreaterThanOrEqual(5);
      // the frames are plain JSON: the run's context travels with its snapshots
      const runSnapshot = listener.frames.find(
        (f) =>
          f['type'] === '@xstate.snapshot' &&
          (f['snapshot'] as { context?: { runId?: string } }).context?.runId === result.id,
      );
      expect(runSnapshot).toBeDefined();
    } finally {
      inspector.stop();
      listener.close();
      await relay.close();
    }
  });
});
