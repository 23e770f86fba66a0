import { afterEach, describe, expect, it } from 'vitest';
import { AmbiguousCallError } from '../../src/index.js';
import { recordDecisions } from '../../src/actions/record-decisions.js';
import { TempStores } from '../helpers/temp-store.js';
import { TWIN_CALL, twinApprovals } from '../helpers/twin-approvals.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'twins', userId: 'alice' };

/** The lead's run paused on its two children's calls, both with id `call_same`. */
async function pausedTwins() {
  const temp = await temps.open();
  const { lead, shipped } = twinApprovals(temp.store);
  const paused = await lead.run('ship both', key);
  expect(paused.interruptionReason).toBe('approval');
  return { temp, lead, shipped, paused };
}

describe('operating sub-agents (issue 39)', () => {
  it("a paused run's RunResult.usage counts its waiting children, as the session view does", async () => {
    const { temp, lead, paused } = await pausedTwins();
    // the lead's one model call and each child's one: 3 calls of 10 in / 5 out
    expect(paused.usage).toMatchObject({ inputTokens: 30, outputTokens: 15 });
    const view = await lead.runtimeFor(temp.store).getSession(key);
    expect(view.runStatus?.usage).toMatchObject({
      inputTokens: paused.usage.inputTokens,
      outputTokens: paused.usage.outputTokens,
    });
  });

  it('a process that never saw the RunState lists the pending calls by id, with agent path and run id', async () => {
    const { temp, paused } = await pausedTwins();
    const other = twinApprovals(temp.store).lead; // nothing shared but the store
    const view = await other.runtimeFor(temp.store).getSession(key);
    const calls = view.runStatus?.interruptions ?? [];
    expect(calls.map((c) => [c.callId, c.agentPath])).toEqual([
      [TWIN_CALL, ['lead', 'alpha']],
      [TWIN_CALL, ['lead', 'beta']],
    ]);
    expect(new Set(calls.map((c) => c.runId)).size).toBe(2);
    expect(calls.map((c) => c.runId).sort()).toEqual(
      paused.interruptions.map((c) => c.runId).sort(),
    );
    expect(view.runStatus?.pendingApprovals).toBe(2);
  });

  it('a decision by call id alone that two children share is AmbiguousCallError naming both runs; with the run it is recorded', async () => {
    const { temp, lead, paused, shipped } = await pausedTwins();
    const runtime = lead.runtimeFor(temp.store);
    const before = await temp.store.load(key);
    const error = await runtime
      .execute(key, recordDecisions([{ callId: TWIN_CALL, approve: true }]))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousCallError);
    const runIds = paused.interruptions.map((c) => c.runId);
    expect((error as AmbiguousCallError).runIds.slice().sort()).toEqual(runIds.slice().sort());
    expect((error as Error).message).toContain('lead > alpha');
    expect((error as Error).message).toContain('lead > beta');
    expect((await temp.store.load(key)).version).toBe(before.version);
    const beta = paused.interruptions.find((c) => c.agentPath?.includes('beta'))!;
    await runtime.execute(
      key,
      recordDecisions([{ callId: TWIN_CALL, approve: true, runId: beta.runId }]),
    );
    const view = await runtime.getSession(key);
    expect(view.runStatus?.interruptions.map((c) => c.agentPath)).toEqual([['lead', 'alpha']]);
    expect(shipped).toEqual([]);
  });

  it("attach from another process lists the children's approval requests, with agent path and run id, before the pause", async () => {
    const { temp, paused } = await pausedTwins();
    const other = twinApprovals(temp.store).lead;
    const events = [];
    for await (const event of other.attach(key.sessionId, { userId: key.userId })) {
      events.push(event);
    }
    const asked = events.filter((e) => e.type === 'approval_requested');
    expect(
      asked.map((e) => e.type === 'approval_requested' && [e.callId, e.agentPath, e.subRunId]),
    ).toEqual(paused.interruptions.map((c) => [TWIN_CALL, c.agentPath, c.runId]));
    expect(asked.map((e) => e.type === 'approval_requested' && e.name)).toEqual(['ship', 'ship']);
    expect(events.at(-1)).toMatchObject({ type: 'run_ended', status: 'awaitingApproval' });
    // Ids keep increasing: resuming after the first request gives the second, then the end.
    const after = asked[0]!.id;
    const rest = [];
    for await (const event of other.attach(key.sessionId, { userId: key.userId, after })) {
      rest.push(event);
    }
    expect(rest.map((e) => e.id)).toEqual([asked[1]!.id, events.at(-1)!.id]);
  });
});
