import { describe, expect, it } from 'vitest';
import { Agent } from '../../../src/index.js';
import { FakeClock } from '../../../src/testing.js';
import { PostgresSessionStore } from '../../../src/postgres.js';
import { describeSession } from '../../../src/runs/session-view.js';
import { SAVE_RETRY_WAITS_MS } from '../../../src/session-host/save-retries.js';
import { databaseUnreachable } from '../../../src/persistence/postgres/database-unreachable.js';
import { until } from '../../helpers/async.js';
import { key, payModel, payTool } from '../../helpers/in-doubt-payment.js';
import { useOwnPostgres } from '../../helpers/postgres-tests.js';

/**
 * Issue 39: the store goes down while a tool runs. This process knows the call's result, so it
 * keeps it and saves it once the store is back; only a process that dies leaves a call in doubt.
 */
const pgt = useOwnPostgres();

/** Whether the test stopped the server (its own: the other files' server is never stopped). */
let down = false;
const serverBack = (): void => {
  if (down) pgt.cluster.startServer();
  down = false;
};

/**
 * A fake clock that notes how long each wait the session's committer makes on it is (the save
 * retries' among them). The cancel watch's reconnects, which back off from 250 ms while the
 * server is down, are not noted: both wait with a stop signal, so the caller is told apart by
 * the committer's file in the stack.
 */
class NotingClock extends FakeClock {
  readonly waits: number[] = [];
  override sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
    if (new Error().stack?.includes('session-committer')) this.waits.push(at - this.now());
    return super.sleepUntil(at, signal);
  }
  /** How many of the waits were a save's retry (the lease renewals' are longer). */
  retries(): number {
    return this.waits.filter((w) => SAVE_RETRY_WAITS_MS.includes(w)).length;
  }
}

/** A promise watched: `done` once it settles (its rejection handled, read from `promise`). */
function settles<T>(promise: Promise<T>) {
  const watched = { promise, done: false };
  promise.then(
    () => (watched.done = true),
    () => (watched.done = true),
  );
  return watched;
}

/** A payer on PostgreSQL whose `pay` stops the server while it runs. */
async function payerCutWhilePaying(prefix: string) {
  const fresh = await pgt.freshStore(prefix);
  const clock = new NotingClock();
  const charges: string[] = [];
  const agent = new Agent({
    name: 'payer',
    model: payModel(),
    store: fresh.store,
    clock,
    tools: [
      payTool(charges, {}, () => {
        pgt.cluster.stopServer(); // the charge happened; the store is down until the test says
        down = true;
        return Promise.resolve();
      }),
    ],
  });
  return { ...fresh, clock, charges, agent };
}

/** What a fresh store over the same schema reads of the session. */
async function stored(schema: string) {
  const store = await PostgresSessionStore.open({ pool: pgt.pool, schema });
  try {
    const record = await store.load(key);
    const view = describeSession(record);
    const runId = view.run?.context.runId ?? view.lastRun?.runId;
    const journal = runId ? await store.readRunJournal(key, runId) : [];
    return { record, journal, history: await store.readHistory(key) };
  } finally {
    await store.close();
  }
}

describe('a store outage while a tool runs (PostgreSQL)', () => {
  it('the store comes back within the bound: the result is saved, the tool ran once, nothing is in doubt', async () => {
    const { agent, clock, charges, schema, cleanup } = await payerCutWhilePaying('back');
    try {
      const running = settles(agent.run('pay 5', key));
      await until(() => clock.retries() === 1 || running.done, 'the first failed save');
      expect(running.done).toBe(false); // today: failed at once, the result lost
      expect(charges).toEqual(['c1']);
      // Still down at the first retry: it waits again, longer.
      clock.advance(SAVE_RETRY_WAITS_MS[0]!);
      await until(() => clock.retries() === 2, 'the second retry to wait');
      serverBack();
      clock.advance(SAVE_RETRY_WAITS_MS[1]!);
      const result = await running.promise;
      expect(result.output).toBe('ok: charged c1');
      expect(result.interrupted).toBe(false);
      expect(charges).toEqual(['c1']);

      const { record, journal, history } = await stored(schema);
      expect(describeSession(record).lastRun?.status).toBe('completed');
      const tool = journal.find((e) => e.kind === 'tool');
      expect(tool?.output).toMatchObject({ callId: 'c1', isError: false });
      expect(tool?.output).not.toHaveProperty('inDoubt');
      expect(history.filter((i) => i.type === 'tool_result')).toMatchObject([
        { callId: 'c1', output: 'charged c1' },
      ]);
    } finally {
      serverBack();
      await cleanup();
    }
  });

  it('the store stays down past the bound: the typed save error, and nothing of the result stored', async () => {
    const { agent, clock, charges, schema, cleanup } = await payerCutWhilePaying('gone');
    try {
      const running = settles(agent.run('pay 5', key));
      for (const [i, wait] of SAVE_RETRY_WAITS_MS.entries()) {
        await until(() => clock.retries() === i + 1 || running.done, `retry ${i + 1} to wait`);
        expect(running.done).toBe(false);
        clock.advance(wait);
      }
      expect(await running.promise.catch((error: unknown) => error)).toMatchObject({
        code: 'SESSION_SAVE_FAILED',
        unreachable: true,
      });
      expect(clock.retries()).toBe(SAVE_RETRY_WAITS_MS.length);
      expect(charges).toEqual(['c1']);

      serverBack();
      const { record, journal, history } = await stored(schema);
      // As saved before the tool ran: the call started, its result nowhere.
      expect(describeSession(record).run?.state).toBe('tools');
      expect(journal.filter((e) => e.kind === 'tool')).toEqual([]);
      expect(history.map((i) => i.type)).toEqual(['message', 'tool_call']);
    } finally {
      serverBack();
      await cleanup();
    }
  });

  it("what counts as unreachable: a connection's failures, not a statement's", () => {
    const sql = (code: string) => Object.assign(new Error('database error'), { code });
    expect(databaseUnreachable(sql('57P01'))).toBe(true); // terminating connection (shutdown)
    expect(databaseUnreachable(sql('57P03'))).toBe(true); // the database system is starting up
    expect(databaseUnreachable(sql('08006'))).toBe(true); // connection failure
    expect(databaseUnreachable(sql('53300'))).toBe(true); // too many connections
    expect(databaseUnreachable(sql('ECONNREFUSED'))).toBe(true);
    expect(databaseUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(databaseUnreachable(sql('23505'))).toBe(false); // unique violation
    expect(databaseUnreachable(sql('42P01'))).toBe(false); // undefined table
    expect(databaseUnreachable(sql('22P02'))).toBe(false); // invalid input
    expect(databaseUnreachable(new TypeError('bad value'))).toBe(false);
  });
});
