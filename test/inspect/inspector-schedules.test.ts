import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle, type InspectorOptions } from '../../src/inspect.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { FIRST_MONDAY, firedSchedules } from '../helpers/schedule-fixtures.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 44, operators: a user's schedules in the inspector, with their last tick's run. */
const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

async function setup() {
  const { store } = await temps.open();
  const { agent, clock } = await firedSchedules(store);
  const start = async (options: Partial<InspectorOptions> = {}) => {
    const inspector = await startInspector({
      runtime: agent.runtimeFor(store),
      userId: 'alice',
      ...options,
    });
    open.push(inspector);
    return { inspector, client: inspectorClient(inspector) };
  };
  return { store, clock, start };
}

interface ScheduleAnswer {
  userId: string | null;
  schedules: {
    id: string;
    rule: string;
    zone: string;
    next: string | null;
    nextAt: number | null;
    paused: boolean;
    runs: number;
    lastTick: {
      outcome: string;
      runId?: string;
      sessionId?: string;
      time: string;
      run: { status: string | null; error?: { code: string } } | null;
    } | null;
  }[];
  nextCursor?: string;
}

const errorCode = (json: unknown) => (json as { error: { code: string } }).error.code;

describe('inspector: schedules', () => {
  it("lists the user's schedules with next fire, runs and the last tick's run as its session has it", async () => {
    const { start } = await setup();
    const { client } = await start();
    expect((await client.get('/api/info')).json).toMatchObject({ schedules: true });
    const answer = await client.get('/api/schedules');
    expect(answer.status).toBe(200);
    const view = answer.json as ScheduleAnswer;
    expect(view.userId).toBe('alice');
    expect(view.schedules.map((s) => s.id)).toEqual(['check', 'daily', 'weekly']);
    const [check, daily, weekly] = view.schedules;
    expect(weekly).toEqual({
      id: 'weekly',
      description: 'Monday digest',
      rule: 'cron 0 9 * * 1 (Europe/Berlin)',
      kind: 'cron',
      zone: 'Europe/Berlin',
      target: { type: 'message', name: 'digest', id: 'weekly' },
      overlap: 'skip',
      catchUp: 'latest',
      paused: false,
      nextAt: Date.UTC(2027, 2, 29, 7),
      next: '2027-03-29T09:00:00+02:00',
      runs: 1,
      maxRuns: null,
      endAt: null,
      firing: [],
      lastTick: {
        tick: FIRST_MONDAY,
        time: '2027-03-22T09:00:00+01:00',
        firedAt: FIRST_MONDAY,
        outcome: 'started',
        runId: expect.any(String) as string,
        sessionId: 'weekly',
        run: { kind: 'run', id: weekly!.lastTick!.runId, status: 'completed' },
      },
    });
    expect(daily!.lastTick).toMatchObject({
      outcome: 'started',
      time: '2027-03-22T08:00:00+00:00',
      run: {
        kind: 'run',
        id: daily!.lastTick!.runId,
        status: 'interrupted',
        interruption: 'error',
        error: { code: 'MODEL_ERROR' },
      },
    });
    expect(check).toMatchObject({
      rule: 'every 900s',
      zone: 'UTC',
      next: '2027-03-22T08:01:00+00:00',
      target: { type: 'event', name: 'orders', id: 'order-7' },
      lastTick: null,
    });
    // never the message text
    expect(answer.text).not.toContain('Send the digest');
    expect(answer.text).not.toContain('bob');

    const first = (await client.get('/api/schedules?limit=2')).json as ScheduleAnswer;
    expect(first.schedules.map((s) => s.id)).toEqual(['check', 'daily']);
    const rest = (
      await client.get(`/api/schedules?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`)
    ).json as ScheduleAnswer;
    expect(rest.schedules.map((s) => s.id)).toEqual(['weekly']);
    expect(rest.nextCursor).toBeUndefined();
  });

  it("never lists another user's schedules: bob's only to an allUsers inspector, his only", async () => {
    const { start } = await setup();
    const { client } = await start();
    const asBob = await client.get('/api/schedules?user=bob');
    expect([asBob.status, errorCode(asBob.json)]).toEqual([403, 'FORBIDDEN_USER']);
    expect(asBob.text).not.toContain('bobs');
    const any = (await start({ allUsers: true })).client;
    const bob = (await any.get('/api/schedules?user=bob')).json as ScheduleAnswer;
    expect(bob.userId).toBe('bob');
    expect(bob.schedules.map((s) => s.id)).toEqual(['bobs']);
    const anonymous = (await start({ userId: undefined })).client;
    expect(((await anonymous.get('/api/schedules')).json as ScheduleAnswer).schedules).toEqual([]);
  });

  it('pauses and resumes from the page with the token and its origin, audited via page; refusals change nothing', async () => {
    const { store, clock, start } = await setup();
    const { inspector, client } = await start({ operator: 'ops-anna' });
    const before = await dumpBackend(store);
    const origin = `http://127.0.0.1:${inspector.port}`;
    const refused: [string, Record<string, string> | undefined, unknown, number, string][] = [
      ['/api/schedules/weekly/pause', {}, {}, 403, 'BAD_TOKEN'],
      [
        '/api/schedules/weekly/pause',
        { 'x-agentstate-token': inspector.token, origin: 'http://evil.example' },
        {},
        403,
        'FORBIDDEN_ORIGIN',
      ],
      ['/api/schedules/weekly/stop', undefined, {}, 404, 'NOT_FOUND'],
      ['/api/schedules/bobs/pause', undefined, {}, 404, 'SCHEDULE_NOT_FOUND'],
      ['/api/schedules/weekly/pause?user=bob', undefined, {}, 403, 'FORBIDDEN_USER'],
      ['/api/schedules/weekly/pause', undefined, { paused: true }, 400, 'BAD_REQUEST'],
    ];
    for (const [path, headers, body, status, code] of refused) {
      const answer = await client.post(path, body, headers);
      expect([path, answer.status, errorCode(answer.json)]).toEqual([path, status, code]);
    }
    expect(await dumpBackend(store)).toEqual(before);

    const paused = await client.post(
      '/api/schedules/weekly/pause',
      {},
      {
        'x-agentstate-token': inspector.token,
        origin,
      },
    );
    expect(paused.json).toEqual({
      id: 'weekly',
      action: 'pause',
      paused: true,
      nextAt: Date.UTC(2027, 2, 29, 7),
    });
    const listed = (await client.get('/api/schedules')).json as ScheduleAnswer;
    expect(listed.schedules.find((s) => s.id === 'weekly')!.paused).toBe(true);
    clock.set(Date.UTC(2027, 2, 30, 12)); // Tuesday: Monday's tick passed while paused
    const resumed = await client.post('/api/schedules/weekly/resume');
    expect(resumed.json).toMatchObject({ paused: false, nextAt: Date.UTC(2027, 3, 5, 7) });

    const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
    expect(
      audit.entries
        .filter((e) => e.action === 'pause' || e.action === 'resume')
        .map((e) => [e.action, e.scheduleId, e.via, e.by]),
    ).toEqual([
      ['pause', 'weekly', 'page', 'ops-anna'],
      ['resume', 'weekly', 'page', 'ops-anna'],
    ]);
  });

  it('answers bad query values with a 400 and its code, and stores nothing', async () => {
    const { store, start } = await setup();
    const { client } = await start();
    const before = await dumpBackend(store);
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=abc',
      'limit=',
      'cursor=',
      'cursor=%21bad',
      'status=paused',
      'limit=1&limit=2',
    ]) {
      const answer = await client.get(`/api/schedules?${query}`);
      expect([query, answer.status, errorCode(answer.json)]).toEqual([query, 400, 'BAD_REQUEST']);
    }
    expect(await dumpBackend(store)).toEqual(before);
  });
});
