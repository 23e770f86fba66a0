import { afterEach, describe, expect, it } from 'vitest';
import { continueRun, type AuditEntry, type SessionRuntime } from '../../src/index.js';
import { FakeClock } from '../../src/testing.js';
import type { KvOp } from '../../src/persistence/kv/backends/kv-backend.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { allAuditEntries } from '../helpers/audit-pages.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Rejections no human makes at the moment they happen (an approval deadline passing, a
 * standing `always` rejection) get a `rejection` entry of their own, written in the batch of
 * the step that records the rejected call.
 */

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const alice = { sessionId: 'a1', userId: 'alice' };
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });
const brief = (e: AuditEntry) => [e.kind, e.tool, e.callId, e.summary];

/** A LevelDB store whose batches are recorded (keys per batch). */
async function recordingStore() {
  const batches: string[][] = [];
  const temp = await temps.open({
    onBatchOp: (index: number, op: KvOp) => {
      if (index === 0) batches.push([]);
      batches[batches.length - 1]!.push(op.key);
    },
  });
  return { ...temp, batches };
}

/** The batch that wrote `entry`, which must also hold the entry of the call's step. */
function expectSameBatch(batches: string[][], entry: AuditEntry, step: AuditEntry): void {
  const batch = batches.find((b) => b.some((k) => k.startsWith('a!') && k.endsWith(entry.id)));
  expect(batch).toBeDefined();
  expect(batch!.some((k) => k.startsWith('a!') && k.endsWith(step.id))).toBe(true);
  // The record, whole or as its changes since the whole one (record-changes.ts).
  expect(batch!.some((k) => k === 's!u:alice!a1' || k === 'c!u:alice!a1')).toBe(true);
}

const entries = (runtime: SessionRuntime) => allAuditEntries((q) => runtime.auditLog(q), 'alice');

describe('audit entries of automatic rejections', () => {
  it('a call whose approval deadline passed has a rejection entry, in the batch of its step', async () => {
    const { store, batches } = await recordingStore();
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { agent, counters } = approvalAgent(store, { clock, approvalTimeoutMs: 60_000 });
    const runtime = agent.runtimeFor(store);
    const paused = await agent.run(callTools(email('bob')), alice);
    const callId = paused.interruptions[0]!.callId;
    clock.advance(60_000);
    const done = await runtime.execute(alice, continueRun());
    expect(done.interrupted).toBe(false);
    expect(counters.executed).toEqual({});

    const all = await entries(runtime);
    const rejection = all.filter((e) => e.kind === 'rejection');
    expect(rejection.map(brief)).toEqual([
      ['rejection', 'send_email', callId, 'send_email rejected: its approval deadline passed'],
    ]);
    expect(rejection[0]).toMatchObject({ runId: paused.id, agentPath: ['assistant'] });
    expect(rejection[0]!.by).toBeUndefined();
    const step = all.find((e) => e.kind === 'tool_call' && e.callId === callId)!;
    expect(step.summary).toBe('send_email did not run: timeout');
    expectSameBatch(batches, rejection[0]!, step);
  });

  it('a call rejected by a standing `always` rejection has a rejection entry, in the batch of its step', async () => {
    const { store, batches } = await recordingStore();
    const { agent, counters } = approvalAgent(store);
    const runtime = agent.runtimeFor(store);
    const first = await agent.run(callTools(email('bob')), alice);
    await agent.resume(
      first.state.reject(first.interruptions[0]!.callId, { always: true, by: 'carol' }),
      { userId: 'alice' },
    );
    const human = (await entries(runtime)).filter((e) => e.kind === 'rejection');
    expect(human.map((e) => e.summary)).toEqual(['send_email rejected (always) by carol']);

    // The next call of that tool is rejected by the session's standing decision: no pause.
    const second = await agent.run(callTools(email('eve')), alice);
    expect(second.interrupted).toBe(false);
    expect(counters.executed).toEqual({});
    const all = await entries(runtime);
    const known = new Set(human.map((e) => e.id));
    const rejection = all.filter((e) => e.kind === 'rejection' && !known.has(e.id));
    expect(rejection).toHaveLength(1);
    const callId = rejection[0]!.callId!;
    expect(callId).not.toBe(first.interruptions[0]!.callId);
    expect(rejection.map(brief)).toEqual([
      ['rejection', 'send_email', callId, 'send_email rejected (always)'],
    ]);
    expect(rejection[0]).toMatchObject({ runId: second.id });
    const step = all.find((e) => e.kind === 'tool_call' && e.callId === callId)!;
    expect(step.summary).toBe('send_email did not run: always');
    expectSameBatch(batches, rejection[0]!, step);
  });
});
