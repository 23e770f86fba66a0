import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult, SessionKey } from '../../../src/index.js';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import { FakeClock } from '../../../src/testing.js';
import { approvalAgent, callTools } from '../../helpers/approval-agent.js';
import { deferred, until } from '../../helpers/async.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

/** Issue 14: `runtime.startScheduler()` on PostgreSQL, through its `approval_deadline` index. */
const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const START = Date.UTC(2026, 0, 1);
const TIMEOUT = 60_000;
const TIMEOUT_MESSAGE =
  'The call to "send_email" was not approved before its deadline and did not run.';
const alice = { sessionId: 'pay', userId: 'alice' };
const bob = { sessionId: 'pay', userId: 'bob' };
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });

async function setup(store?: PostgresSessionStore, clock = new FakeClock(START)) {
  let own = store;
  if (!own) {
    const fresh = await pgt.freshStore('sched');
    cleanups.push(fresh.cleanup);
    own = fresh.store;
  }
  return { store: own, clock, ...approvalAgent(own, { clock, approvalTimeoutMs: TIMEOUT }) };
}

const dueKeys = async (store: PostgresSessionStore, until: number) =>
  (await store.dueApprovals({ until, limit: 10 })).due.map((e) => [e.key, e.deadline]);

function observer() {
  const continued = new Map<string, ReturnType<typeof deferred<RunResult<unknown>>>>();
  const slot = (key: SessionKey) => {
    const id = `${key.userId}/${key.sessionId}`;
    if (!continued.has(id)) continued.set(id, deferred<RunResult<unknown>>());
    return continued.get(id)!;
  };
  const errors: unknown[] = [];
  return {
    errors,
    next: (key: SessionKey) => slot(key).promise,
    options: {
      onContinued: (event: { key: SessionKey; result: RunResult<unknown> }) =>
        slot(event.key).resolve(event.result),
      onError: (error: unknown) => errors.push(error),
    },
  };
}

describe('runtime.startScheduler() on PostgreSQL', () => {
  it('fires a deadline while the process lives, across users, and the index follows the runs', async () => {
    const { store, agent, clock, counters } = await setup();
    await agent.run(callTools(email('a@x.io')), alice);
    clock.advance(10_000);
    await agent.run(callTools(email('b@x.io')), bob);
    expect(await dueKeys(store, START + TIMEOUT * 2)).toEqual([
      [alice, START + TIMEOUT],
      [bob, START + 10_000 + TIMEOUT],
    ]);
    const seen = observer();
    const scheduler = agent.startScheduler(seen.options);
    try {
      await until(() => clock.pendingSleepers === 1, 'the scheduler to sleep');
      clock.advance(TIMEOUT - 10_000); // alice's deadline only
      const result = await seen.next(alice);
      expect(result).toMatchObject({ interrupted: false });
      expect(result.output).toBe(`Done. send_email (error): ${TIMEOUT_MESSAGE}`);
      expect(await dueKeys(store, START + TIMEOUT * 2)).toEqual([[bob, START + 10_000 + TIMEOUT]]);
      clock.advance(10_000);
      await seen.next(bob);
      expect(await dueKeys(store, START + TIMEOUT * 2)).toEqual([]);
      expect(counters.executed).toEqual({});
      expect(seen.errors).toEqual([]);
    } finally {
      await scheduler.stop();
    }
  });

  it('catches up on start in another runtime with a deadline missed while none ran', async () => {
    const first = await setup();
    await first.agent.run(callTools(email('a@x.io')), alice);
    // A second process (its own pool and agent) starts long after the deadline passed.
    const other = await PostgresSessionStore.open({ pool: pgt.pool, schema: first.store.schema });
    cleanups.push(() => other.close());
    const later = await setup(other, new FakeClock(START + TIMEOUT * 10));
    const seen = observer();
    const scheduler = later.agent.startScheduler(seen.options);
    try {
      const result = await seen.next(alice);
      expect(result.output).toBe(`Done. send_email (error): ${TIMEOUT_MESSAGE}`);
      expect(await dueKeys(other, START + TIMEOUT * 20)).toEqual([]);
      expect(later.counters.executed).toEqual({});
      expect(first.model.calls).toHaveLength(1);
      expect(seen.errors).toEqual([]);
    } finally {
      await scheduler.stop();
    }
  });

  it('drops a stale index entry without acting on the session', async () => {
    const { store, agent, clock, model } = await setup();
    await agent.run('hello', alice);
    // Filed under a deadline its record does not hold (a hand edit).
    await pgt.pool.query(
      `UPDATE "${store.schema}".agentstate_sessions SET approval_deadline = $1`,
      [START - 5],
    );
    const before = await store.load(alice);
    const seen = observer();
    const scheduler = agent.startScheduler(seen.options);
    try {
      await until(async () => (await dueKeys(store, START + TIMEOUT)).length === 0, 'the drop');
      expect(await store.load(alice)).toEqual(before);
      expect(model.calls).toHaveLength(1);
      expect(clock.now()).toBe(START);
      expect(seen.errors).toEqual([]);
    } finally {
      await scheduler.stop();
    }
  });
});
