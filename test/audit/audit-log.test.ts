import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidSessionRecordError,
  RunState,
  SessionRuntime,
  SessionSaveFailedError,
  changeBudget,
  continueRun,
  deleteSession,
  forkSession,
  sendMessage,
  suspendSession,
  type AuditEntry,
} from '../../src/index.js';
import { FakeClock, MemorySessionStore } from '../../src/testing.js';
import type { KvOp } from '../../src/persistence/kv/backends/kv-backend.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { allAuditEntries } from '../helpers/audit-pages.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const alice = { sessionId: 'a1', userId: 'alice' };
const lookup = (word: string) => ({ name: 'lookup', arguments: { word } });
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });
const brief = (e: AuditEntry) => [e.kind, e.action ?? e.tool, e.summary];

/** A LevelDB store whose batches are recorded (keys per batch), and can be made to fail. */
async function recordingStore() {
  const batches: string[][] = [];
  const control = { fail: false };
  const temp = await temps.open({
    onBatchOp: (index: number, op: KvOp) => {
      if (control.fail) throw new Error('disk full');
      if (index === 0) batches.push([]);
      batches[batches.length - 1]!.push(op.key);
    },
  });
  return { ...temp, batches, control };
}

const allEntries = (runtime: SessionRuntime, userId: string | undefined) =>
  allAuditEntries((q) => runtime.auditLog(q), userId);

describe('audit log', () => {
  it('records session actions, permission decisions, denials, tool calls and human decisions, each in its step’s batch', async () => {
    const { store, batches } = await recordingStore();
    const { agent } = approvalAgent(store, {
      permissions: {
        check: (call) =>
          (call.arguments as { word?: string }).word === 'x' ? { deny: 'no x' } : 'allow',
      },
    });
    const runtime = agent.runtimeFor(store);
    const paused = await agent.run(callTools(lookup('x'), lookup('y'), email('bob')), {
      sessionId: alice.sessionId,
      userId: alice.userId,
    });
    expect(paused.interruptions.map((i) => i.toolName)).toEqual(['send_email']);
    const done = await agent.resume(
      paused.state.approve(paused.interruptions[0]!.callId, { by: 'carol', via: 'page' }),
      { userId: 'alice' },
    );
    expect(done.output).toContain('send_email: sent to bob');

    const entries = await allEntries(runtime, 'alice');
    // Entries sort by time: compare them as a set (several may share a millisecond).
    expect(entries.map(brief).sort()).toEqual(
      [
        ['session', 'create', 'session created'],
        ['session', 'sendMessage', 'sendMessage'],
        ['denial', 'lookup', 'lookup denied: no x'],
        ['permission', 'lookup', 'lookup permission: allow'],
        ['permission', 'send_email', 'send_email permission: allow'],
        ['session', 'resume', 'resume'],
        ['approval', 'send_email', 'send_email approved by carol'],
        ['tool_call', 'lookup', 'lookup did not run: denied'],
        ['tool_call', 'lookup', 'lookup ran'],
        ['tool_call', 'send_email', 'send_email ran'],
      ].sort(),
    );
    expect(entries).toHaveLength(10);
    for (const e of entries) {
      expect(e.userId).toBe('alice');
      expect(e.sessionId).toBe('a1');
    }
    const approval = entries.find((e) => e.kind === 'approval')!;
    expect(approval).toMatchObject({ by: 'carol', via: 'page', runId: paused.id });
    expect(entries.find((e) => e.action === 'sendMessage')?.runId).toBe(paused.id);
    const denial = entries.find((e) => e.kind === 'denial')!;
    expect(denial).toMatchObject({ permission: 'deny', agentPath: ['assistant'] });
    expect(
      entries
        .filter((e) => e.kind === 'tool_call')
        .map((e) => e.permission)
        .sort(),
    ).toEqual(['allow', 'allow', 'deny']);
    // Same batch: every audit key was written together with the session record (whole, or its
    // changes since the whole one).
    const auditBatches = batches.filter((b) => b.some((k) => k.startsWith('a!')));
    expect(auditBatches.length).toBeGreaterThan(0);
    for (const batch of auditBatches) {
      expect(batch.includes('s!u:alice!a1') || batch.includes('c!u:alice!a1')).toBe(true);
    }
    // A human's decision defaults to via 'api'.
    const rejected = await agent.run(callTools(email('eve')), { ...alice });
    await agent.resume(rejected.state.reject(rejected.interruptions[0]!.callId), {
      userId: 'alice',
    });
    const rejection = (await runtime.auditLog({ userId: 'alice', kind: 'rejection' })).entries;
    expect(rejection.map((e) => [e.summary, e.via, e.by])).toEqual([
      ['send_email rejected', 'api', undefined],
    ]);
  });

  it('a save that fails writes neither the step nor its audit entry', async () => {
    const { store, control } = await recordingStore();
    const { agent } = approvalAgent(store);
    const runtime = agent.runtimeFor(store);
    await agent.run(callTools(), { ...alice });
    const before = await allEntries(runtime, 'alice');
    control.fail = true;
    await expect(runtime.execute(alice, suspendSession())).rejects.toBeInstanceOf(
      SessionSaveFailedError,
    );
    control.fail = false;
    expect(await allEntries(runtime, 'alice')).toEqual(before);
    expect((await runtime.getSession(alice)).status).toBe('active');
    await runtime.execute(alice, suspendSession());
    const after = await allEntries(runtime, 'alice');
    expect(after.slice(before.length).map(brief)).toEqual([
      ['session', 'suspendSession', 'suspendSession'],
    ]);
  });

  it('queries by session, kind, time range and pages; exports JSON lines', async () => {
    const { store } = await temps.open();
    const clock = new FakeClock(1_000);
    const { agent } = approvalAgent(store, { clock });
    const runtime = agent.runtimeFor(store);
    await agent.run(callTools(), { ...alice });
    clock.set(2_000);
    await agent.run(callTools(), { sessionId: 'a2', userId: 'alice' });
    clock.set(3_000);
    await runtime.execute(alice, changeBudget({ maxTurns: 5 }));
    clock.set(4_000);
    await runtime.execute(alice, forkSession('a3'));

    const all = await allEntries(runtime, 'alice');
    expect(all.map((e) => [e.at, e.sessionId, e.action])).toEqual([
      [1_000, 'a1', 'create'],
      [1_000, 'a1', 'sendMessage'],
      [2_000, 'a2', 'create'],
      [2_000, 'a2', 'sendMessage'],
      [3_000, 'a1', 'changeBudget'],
      [4_000, 'a1', 'forkSession'],
    ]);
    expect(all[4]!.summary).toBe('budget set to {"maxTurns":5}');
    expect(all[5]!.summary).toBe('forked into a3');
    const a2 = await runtime.auditLog({ userId: 'alice', sessionId: 'a2' });
    expect(a2.entries.map((e) => e.action)).toEqual(['create', 'sendMessage']);
    const ranged = await runtime.auditLog({ userId: 'alice', from: 2_000, to: 4_000 });
    expect(ranged.entries.map((e) => e.at)).toEqual([2_000, 2_000, 3_000]);
    const page1 = await runtime.auditLog({ userId: 'alice', kind: ['session'], limit: 4 });
    expect(page1.entries).toHaveLength(4);
    expect(page1.nextCursor).toBeDefined();
    const page2 = await runtime.auditLog({
      userId: 'alice',
      kind: 'session',
      limit: 4,
      cursor: page1.nextCursor,
    });
    expect(page2.entries.map((e) => e.action)).toEqual(['changeBudget', 'forkSession']);
    expect(page2.nextCursor).toBeUndefined();
    expect((await runtime.auditLog({ userId: 'alice', kind: 'denial' })).entries).toEqual([]);

    const lines: string[] = [];
    for await (const line of runtime.exportAudit({ userId: 'alice', sessionId: 'a1' })) {
      lines.push(line);
    }
    expect(lines.every((l) => l.endsWith('\n'))).toBe(true);
    expect(lines.map((l) => (JSON.parse(l) as AuditEntry).action)).toEqual([
      'create',
      'sendMessage',
      'changeBudget',
      'forkSession',
    ]);
    expect(() => runtime.auditLog({ sessionId: 'a1' } as never)).toThrow(/userId is required/);
    expect(() => runtime.auditLog({ userId: 'alice', kind: 'nope' as never })).toThrow(
      /unknown kind "nope"/,
    );
    expect(() => runtime.auditLog({ userId: 'alice', limit: 0 })).toThrow(/limit/);
  });

  it('a user’s entries never answer another user’s query (named and anonymous alike)', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    const runtime = agent.runtimeFor(store);
    await agent.run(callTools(), { sessionId: 's', userId: 'alice' });
    await agent.run(callTools(), { sessionId: 's', userId: 'bob' });
    await agent.run(callTools(), { sessionId: 's' });
    for (const userId of ['alice', 'bob', undefined]) {
      const entries = await allEntries(runtime, userId);
      expect(entries).toHaveLength(2);
      for (const e of entries) expect(e.userId).toBe(userId);
    }
    expect(await allEntries(runtime, 'carol')).toEqual([]);
    expect(
      (await runtime.auditLog({ userId: 'bob', sessionId: 's', kind: 'session' })).entries.map(
        (e) => e.userId,
      ),
    ).toEqual(['bob', 'bob']);
    // An AgentSession's runtime answers only for its own (user, session).
    const session = await agent.createSession({ sessionId: 's', userId: 'alice' }, { store });
    expect((await session.runtime.auditLog({ userId: 'bob' })).entries).toEqual([]);
    expect((await session.runtime.auditLog({ userId: 'alice' })).entries).toHaveLength(2);
  });

  it('entries are redacted like everything else stored', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store, {
      redact: (text) => text.replaceAll('hunter2', '[REDACTED]'),
      permissions: { check: () => ({ deny: 'password hunter2 is not allowed' }) },
    });
    await agent.run(callTools(lookup('w')), { ...alice });
    await agent.runtimeFor(store).execute(alice, sendMessage(callTools()));
    const lines: string[] = [];
    for await (const l of agent.runtimeFor(store).exportAudit({ userId: 'alice' })) lines.push(l);
    const text = lines.join('');
    expect(text).toContain('lookup denied: password [REDACTED] is not allowed');
    expect(text).not.toContain('hunter2');
    const raw: string[] = [];
    for await (const [, value] of store.backend.iterate({ gte: 'a!', lt: 'a"' })) raw.push(value);
    expect(raw.join('')).not.toContain('hunter2');
  });

  it('deleting and purging a session keeps its audit entries and records the purge', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    const runtime = agent.runtimeFor(store);
    await agent.run(callTools(), { ...alice });
    await runtime.execute(alice, deleteSession());
    await runtime.execute(alice, deleteSession({ purge: true }));
    await expect(store.load(alice)).rejects.toThrow();
    const entries = await allEntries(runtime, 'alice');
    expect(entries.map((e) => e.action)).toEqual([
      'create',
      'sendMessage',
      'deleteSession',
      'purge',
    ]);
  });

  it('a damaged audit value is InvalidSessionRecordError naming its key', async () => {
    const { store } = await temps.open();
    const { agent } = approvalAgent(store);
    await agent.run(callTools(), { ...alice });
    const keys: string[] = [];
    for await (const k of store.backend.keys({ gte: 'a!u:alice!', lt: 'a!u:alice"' })) keys.push(k);
    const target = keys[1]!;
    const value = (await store.backend.get(target))!;
    await store.backend.write([
      { type: 'put', key: target, value: value.replace('sendMessage', 'sendMessagf') },
    ]);
    const error = await agent
      .runtimeFor(store)
      .auditLog({ userId: 'alice' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(InvalidSessionRecordError);
    expect((error as InvalidSessionRecordError).message).toContain(target);
    // Moved under another user: fails its key check.
    await store.backend.write([
      { type: 'put', key: target, value },
      { type: 'put', key: target.replace('u:alice', 'u:bob'), value },
    ]);
    await expect(agent.runtimeFor(store).auditLog({ userId: 'bob' })).rejects.toBeInstanceOf(
      InvalidSessionRecordError,
    );
  });

  it('decision APIs take who and how: RunState.approve({ by, via }) is checked like any option', () => {
    const state = RunState.fromJSON({
      schemaVersion: 1,
      runId: 'r',
      sessionId: 's',
      agentName: 'a',
      status: 'interrupted',
      interruptionReason: 'approval',
      turn: 1,
      maxTurns: 5,
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 },
      startedAt: 0,
      historyStart: 0,
      inputCount: 1,
      items: [],
      interruptions: [{ callId: 'c1', toolName: 't', arguments: {}, agent: 'a' }],
      decisions: [],
    });
    expect(state.approve('c1', { by: 'carol', via: 'cli' }).decisions).toMatchObject([
      { callId: 'c1', approve: true, by: 'carol', via: 'cli' },
    ]);
    expect(() =>
      approvalAgent(undefined)
        .agent.runtimeFor(new MemorySessionStore())
        .execute('x', continueRun({ via: 'email' as never })),
    ).toThrow(/via/);
  });
});
