import { afterEach, describe, expect, it } from 'vitest';
import { WrongAgentError, type RunResult, type SessionKey } from '../../../src/index.js';
import { PostgresSessionStore } from '../../../src/persistence/postgres/postgres-session-store.js';
import { FakeClock } from '../../../src/testing.js';
import { approvalAgent, callTools } from '../../helpers/approval-agent.js';
import { deferred, until } from '../../helpers/async.js';
import { JsonLineChild } from '../../helpers/json-line-child.js';
import { usePostgres } from '../../helpers/postgres-tests.js';

/**
 * Issue 14, point 4: approvals decided in one process are picked up by another, through
 * LISTEN/NOTIFY, with polling on the injected clock as the fallback.
 */
const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const HOUR = 3_600_000;
const email = (to: string) => ({ name: 'send_email', arguments: { to, body: 'hi' } });

/** Backends of this file's database LISTENing (the scheduler's dedicated connections). */
const listeners = () => pgt.listeners();

describe('approvals decided in another process', () => {
  it('process A waits on an approval, process B records the decision, A hears of it and finishes', async () => {
    const schema = pgt.schema('decide');
    const start = async (owner: string) => {
      const child = await JsonLineChild.start('test/helpers/pg-approval-worker.ts', [
        pgt.url,
        schema,
        owner,
      ]);
      cleanups.push(() => child.stop());
      expect(await child.next('ready')).toMatchObject({ event: 'ready' });
      return child;
    };
    const a = await start('proc-a');
    a.send('run', { sessionId: 'pay', to: 'a@x.io' });
    const paused = await a.next('paused');
    expect(paused).toMatchObject({ interrupted: true });
    // Polling once an hour: only the notification can bring the decision in this test's time.
    a.send('schedule', { pollIntervalMs: HOUR });
    await a.next('scheduling');
    await until(async () => (await listeners()).length === 1, 'A to listen');

    const b = await start('proc-b');
    b.send('submit', { state: paused['state'], approve: true });
    expect(await b.next('submitted', 'failed')).toMatchObject({ event: 'submitted' });
    const continued = await a.next('continued', 'scheduler-error');
    expect(continued).toMatchObject({
      event: 'continued',
      pid: a.pid,
      sessionId: 'pay',
      reason: 'decisions',
      output: 'Done. send_email: sent to a@x.io',
      executed: { send_email: 1 },
    });
    // Applied exactly once: the inbox is empty, and a second submission of the same decision
    // is refused (the run it was made on has ended).
    const inbox = async () =>
      (await pgt.pool.query(`SELECT count(*)::int AS n FROM "${schema}".agentstate_decisions`))
        .rows[0] as { n: number };
    await until(async () => (await inbox()).n === 0, 'the applied submission to be dropped');
    b.send('submit', { state: paused['state'], approve: true });
    expect(await b.next('submitted', 'failed')).toMatchObject({
      event: 'failed',
      name: 'NothingToResumeError',
    });
    expect(a.events.filter((e) => e.event === 'continued')).toEqual([]);
  });
});

describe('the scheduler without a listening connection', () => {
  async function setup() {
    const clock = new FakeClock();
    const fresh = await pgt.freshStore('poll');
    cleanups.push(fresh.cleanup);
    const other = await PostgresSessionStore.open({ pool: pgt.pool, schema: fresh.schema });
    cleanups.push(() => other.close());
    const worker = approvalAgent(fresh.store, { clock });
    const api = approvalAgent(other, { clock });
    const continued: { key: SessionKey; result: RunResult<unknown>; reason: string }[] = [];
    const errors: unknown[] = [];
    const done = deferred();
    const options = {
      pollIntervalMs: 10_000,
      onContinued: (event: (typeof continued)[number]) => {
        continued.push(event);
        done.resolve();
      },
      onError: (error: unknown) => errors.push(error),
    };
    return { clock, worker, api, continued, errors, done: done.promise, options };
  }

  it('polls the inbox on the injected clock when the LISTEN connection drops, then listens again', async () => {
    const { clock, worker, api, continued, errors, done, options } = await setup();
    const paused = await worker.agent.run(callTools(email('a@x.io')), {
      sessionId: 's',
      userId: 'u',
    });
    const scheduler = worker.agent.startScheduler(options);
    cleanups.push(() => scheduler.stop());
    await until(async () => (await listeners()).length === 1, 'the scheduler to listen');
    const [listening] = await listeners();
    await pgt.pool.query('SELECT pg_terminate_backend($1)', [listening]);
    await until(async () => errors.length === 1, 'the loss to be reported');
    await until(async () => clock.pendingSleepers === 1, 'the scheduler to sleep until its poll');

    const state = paused.state.approve(paused.interruptions[0]!.callId);
    await api.agent.submitDecisions(state);
    clock.advance(10_000);
    await done;
    expect(continued).toMatchObject([
      { key: { sessionId: 's', userId: 'u' }, reason: 'decisions' },
    ]);
    expect(continued[0]!.result.output).toBe('Done. send_email: sent to a@x.io');
    expect(worker.counters.executed).toEqual({ send_email: 1 });
    expect(api.counters.executed).toEqual({});
    // It listens again (a new connection), and reported the loss once.
    await until(async () => (await listeners()).some((pid) => pid !== listening), 'a new LISTEN');
    expect(errors).toHaveLength(1);
  });

  it('with listen: false, polls only; a submission with nothing to decide is refused, typed', async () => {
    const { clock, worker, api, continued, done, options } = await setup();
    const paused = await worker.agent.run(callTools(email('b@x.io')), {
      sessionId: 's',
      userId: 'u',
    });
    // The run's cancel watch keeps the store's connection (idle, for its linger): not the
    // scheduler's.
    const before = await listeners();
    const scheduler = worker.agent.startScheduler({ ...options, listen: false });
    cleanups.push(() => scheduler.stop());
    await until(async () => clock.pendingSleepers === 1, 'the scheduler to sleep');
    expect((await listeners()).filter((pid) => !before.includes(pid))).toEqual([]);
    await expect(api.agent.submitDecisions(paused.state)).rejects.toThrow(/holds no decisions/);
    await api.agent.submitDecisions(
      paused.state.reject(paused.interruptions[0]!.callId, { message: 'not now' }),
    );
    clock.advance(10_000);
    await done;
    expect(continued[0]!.result.output).toBe('Done. send_email (error): not now');
    expect(worker.counters.executed).toEqual({});
  });
});

describe('decisions submitted through another agent (issue 26)', () => {
  it('are WRONG_AGENT: nothing is recorded in the inbox, the session is unchanged', async () => {
    const fresh = await pgt.freshStore('wrong');
    cleanups.push(fresh.cleanup);
    const clock = new FakeClock();
    const worker = approvalAgent(fresh.store, { clock });
    const other = approvalAgent(fresh.store, { name: 'other', clock });
    const key = { sessionId: 's', userId: 'u' };
    const paused = await worker.agent.run(callTools(email('a@x.io')), key);
    const state = paused.state.approve(paused.interruptions[0]!.callId);
    const inbox = async () =>
      (
        await pgt.pool.query(
          `SELECT count(*)::int AS n FROM "${fresh.schema}".agentstate_decisions`,
        )
      ).rows[0] as { n: number };
    const before = await fresh.store.load(key);
    await expect(other.agent.submitDecisions(state)).rejects.toBeInstanceOf(WrongAgentError);
    expect(await inbox()).toEqual({ n: 0 });
    expect(await fresh.store.load(key)).toEqual(before);
    await worker.agent.submitDecisions(state);
    expect(await inbox()).toEqual({ n: 1 });

    // Another agent's scheduler leaves the submission in the inbox for the run's agent.
    const errors: unknown[] = [];
    const continued: unknown[] = [];
    const options = {
      listen: false,
      onError: (error: unknown) => errors.push(error),
      onContinued: (event: unknown) => continued.push(event),
    };
    const elsewhere = other.agent.startScheduler(options);
    await until(async () => clock.pendingSleepers === 1, 'the other scheduler to sleep');
    await elsewhere.stop();
    expect([errors, continued, await inbox()]).toEqual([[], [], { n: 1 }]);
    expect(await fresh.store.load(key)).toEqual(before);
    const own = worker.agent.startScheduler(options);
    cleanups.push(() => own.stop());
    await until(async () => continued.length === 1, 'the run to be continued');
    expect(worker.counters.executed).toEqual({ send_email: 1 });
    expect(errors).toEqual([]);
  });
});
