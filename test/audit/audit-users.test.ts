import { afterEach, describe, expect, it } from 'vitest';
import {
  LevelSessionStore,
  RunState,
  getRunContext,
  type PermissionPolicy,
  type SessionStore,
} from '../../src/index.js';
import { triageWithBilling } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { allAuditEntries } from '../helpers/audit-pages.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

interface Check {
  tool: string;
  scopeUser: string | undefined;
  contextUser: string | undefined;
  runId: string;
}

/** A policy that allows everything and records who each check was for. */
function recordingPolicy(checks: Check[]): PermissionPolicy {
  return {
    check(call, scope) {
      checks.push({
        tool: call.name,
        scopeUser: scope.userId,
        contextUser: getRunContext().userId,
        runId: getRunContext().runId,
      });
      return 'allow';
    },
  };
}

function fixtures(store: SessionStore, checks: Check[]) {
  return triageWithBilling({
    store,
    triage: { permissions: recordingPolicy(checks) },
  });
}

const entriesOf = (store: SessionStore, userId: string) =>
  allAuditEntries((q) => store.readAudit(q), userId, 4);

describe('userId across interleaved sessions', () => {
  it('two users, sub-agents and a reopen in between: every audit entry and permission check carries its own user only', async () => {
    const temp = await temps.open();
    const checks: Check[] = [];
    const first = fixtures(temp.store, checks);
    const a = await first.triage.run('refund order 1', { sessionId: 'shared', userId: 'alice' });
    const b = await first.triage.run('refund order 2', { sessionId: 'shared', userId: 'bob' });
    expect(a.interruptions.map((i) => i.toolName)).toEqual(['refund']);
    expect(b.interruptions.map((i) => i.toolName)).toEqual(['refund']);
    const states = { alice: a.state.toString(), bob: b.state.toString() };
    await temp.store.close();

    // Reopened: a new store object, new agents, the same policy log.
    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const second = fixtures(store, checks);
    const decide = (json: string, approve: boolean, by: string) => {
      const state = RunState.fromJSON(json);
      const i = state.interruptions[0]!;
      return approve
        ? state.approve(i.callId, { runId: i.runId!, by, via: 'cli' })
        : state.reject(i.callId, { runId: i.runId!, by });
    };
    const bobDone = await second.triage.resume(decide(states.bob, true, 'bob-admin'), {
      userId: 'bob',
    });
    const aliceDone = await second.triage.resume(decide(states.alice, false, 'alice-admin'), {
      userId: 'alice',
    });
    expect(bobDone.output).toContain('refunded');
    expect(aliceDone.output).not.toContain('refunded');
    expect(second.seen.refunds).toEqual(['2']);

    const runsOf = (result: typeof a) => [result.id, ...(result.subRuns ?? []).map((s) => s.runId)];
    const runs = {
      alice: new Set([...runsOf(a), ...runsOf(aliceDone)]),
      bob: new Set([...runsOf(b), ...runsOf(bobDone)]),
    };
    for (const user of ['alice', 'bob'] as const) {
      const entries = await entriesOf(store, user);
      const other = user === 'alice' ? 'bob' : 'alice';
      expect(entries.length).toBeGreaterThan(8);
      for (const e of entries) {
        expect(e.userId).toBe(user);
        expect(e.sessionId).toBe('shared');
        if (e.runId !== undefined) {
          expect(runs[user].has(e.runId)).toBe(true);
          expect(runs[other].has(e.runId)).toBe(false);
        }
        expect(JSON.stringify(e)).not.toContain(`${other}-admin`);
      }
      // The sub-agent's steps are in the log, with its agent path.
      expect(
        entries.some((e) => e.kind === 'tool_call' && e.agentPath?.join('>') === 'triage>billing'),
      ).toBe(true);
      const decided = entries.filter((e) => e.kind === 'approval' || e.kind === 'rejection');
      expect(decided.map((e) => [e.kind, e.by])).toEqual([
        user === 'bob' ? ['approval', 'bob-admin'] : ['rejection', 'alice-admin'],
      ]);
    }
    // Every permission check ran in its own user's context, in that user's runs.
    expect(checks.length).toBeGreaterThan(6);
    for (const c of checks) {
      expect(c.scopeUser).toBe(c.contextUser);
      const user = c.scopeUser as 'alice' | 'bob';
      expect(runs[user].has(c.runId)).toBe(true);
    }
    expect(new Set(checks.map((c) => c.scopeUser))).toEqual(new Set(['alice', 'bob']));
  });
});
