import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  RunContext,
  SchedulesUnsupportedError,
  openSchedules,
  scheduleTools,
  type PermissionPolicy,
  type RunResult,
  type ScheduleToolsOptions,
  type SessionStore,
  type ToolResultItem,
} from '../../src/index.js';
import { FakeClock, MemorySessionStore } from '../../src/testing.js';
import { approvalModel, callOrder, callTools, sinceLastUser } from '../helpers/approval-agent.js';
import { until } from '../helpers/async.js';
import { MapSessionStore } from '../helpers/map-session-store.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const NOW = Date.UTC(2026, 0, 5, 8); // a Monday, 09:00 in Berlin
const HOUR = 3_600_000;
const iso = (at: number) => new Date(at).toISOString();

/** An agent whose scripted model calls the tools its user message lists, with the schedule tools. */
function scheduling(
  store: SessionStore,
  options: Partial<Omit<ScheduleToolsOptions, 'store' | 'agent'>> = {},
  permissions?: PermissionPolicy,
) {
  const clock = new FakeClock(NOW);
  const agent = new Agent({
    name: 'assistant',
    model: approvalModel(),
    store,
    clock,
    ...(permissions ? { permissions } : {}),
    toolkits: [scheduleTools({ store, agent: 'assistant', clock, ...options })],
  });
  return { agent, clock, schedules: openSchedules(store, { clock }) };
}

/** The tool results of a session's last run, in call order. */
async function results(store: SessionStore, result: RunResult<unknown>): Promise<ToolResultItem[]> {
  const history = await store.readHistory({ sessionId: result.sessionId, userId: result.userId });
  return sinceLastUser(history)
    .filter((i): i is ToolResultItem => i.type === 'tool_result')
    .sort((a, b) => callOrder(a.callId) - callOrder(b.callId));
}

const create = (args: Record<string, unknown>) => ({ name: 'create_schedule', arguments: args });
const alice = { sessionId: 'chat-a', userId: 'alice' };
const bob = { sessionId: 'chat-b', userId: 'bob' };

describe('scheduleTools: the model schedules for its run’s user', () => {
  it('wrong options are a TypeError naming the option; a store without schedules is SchedulesUnsupportedError', () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    expect(() => scheduleTools({ store, agent: '' })).toThrow(
      /option "agent" must be a non-empty string/,
    );
    expect(() =>
      scheduleTools({ store, agent: 'a', maxSchedules: 3 } as unknown as ScheduleToolsOptions),
    ).toThrow(/unknown option "maxSchedules"; valid options are store, agent, clock/);
    expect(() =>
      scheduleTools({ store, agent: 'a', allowTargets: 'any' as 'own-session' }),
    ).toThrow(/option "allowTargets" must be 'own-session' or 'new-sessions'/);
    expect(() =>
      scheduleTools({ store, agent: 'a', needsApproval: { create: 'yes' as unknown as boolean } }),
    ).toThrow(/option "needsApproval"/);
    expect(() => scheduleTools({ store: new MapSessionStore(), agent: 'a' })).toThrow(
      SchedulesUnsupportedError,
    );
  });

  it('creates a schedule for the run’s user, into its own session; another user’s run can neither list nor cancel it', async () => {
    const { store } = await temps.open();
    const { agent, schedules } = scheduling(store);
    const made = await agent.run(
      callTools(
        create({
          cron: '0 9 * * 1',
          timezone: 'Europe/Berlin',
          text: 'Send alice the weekly summary',
          description: 'weekly summary',
          maxRuns: 4,
          // the model cannot name a user: an argument of its own is not read
          userId: 'bob',
        }),
      ),
      alice,
    );
    const [created] = await results(store, made);
    expect(created!.isError).toBeFalsy();
    const shown = JSON.parse(created!.output) as { created: { id: string; next: string } };
    const id = shown.created.id;
    expect(shown.created.next).toBe('2026-01-12T08:00:00.000Z');

    const stored = await schedules.get(id, { userId: 'alice' });
    expect(stored).toMatchObject({
      userId: 'alice',
      rule: { cron: '0 9 * * 1', timezone: 'Europe/Berlin' },
      target: {
        type: 'message',
        agent: 'assistant',
        sessionId: 'chat-a',
        text: 'Send alice the weekly summary',
      },
      overlap: 'queue',
      maxRuns: 4,
      description: 'weekly summary',
    });
    // bob's bucket has nothing
    expect((await schedules.list({ userId: 'bob' })).schedules).toEqual([]);

    const asBob = await agent.run(
      callTools(
        { name: 'list_schedules', arguments: {} },
        { name: 'cancel_schedule', arguments: { id } },
      ),
      bob,
    );
    const [bobList, bobCancel] = await results(store, asBob);
    expect(JSON.parse(bobList!.output)).toEqual({ schedules: [], total: 0 });
    expect(bobCancel!.isError).toBe(true);
    expect(bobCancel!.output).toContain(`No schedule "${id}"`);
    expect((await schedules.get(id, { userId: 'alice' })).version).toBe(1);

    const asAlice = await agent.run(callTools({ name: 'list_schedules', arguments: {} }), {
      ...alice,
      sessionId: 'chat-a2',
    });
    const [aliceList] = await results(store, asAlice);
    expect(JSON.parse(aliceList!.output)).toMatchObject({
      total: 1,
      schedules: [
        { id, rule: 'cron 0 9 * * 1 (Europe/Berlin)', text: 'Send alice the weekly summary' },
      ],
    });
    const cancelled = await agent.run(
      callTools({ name: 'cancel_schedule', arguments: { id } }),
      alice,
    );
    expect((await results(store, cancelled))[0]!.output).toBe(`Cancelled schedule "${id}".`);
    expect((await schedules.list({ userId: 'alice' })).schedules).toEqual([]);

    // audited in alice's partition: created, then deleted, by the agent's runs
    const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
    expect(audit.entries.map((e) => [e.action, e.scheduleId, e.sessionId, e.by])).toEqual([
      ['create', id, 'chat-a', `agent assistant (run ${made.id})`],
      ['delete', id, 'chat-a', `agent assistant (run ${cancelled.id})`],
    ]);
    expect((await store.readAudit({ userId: 'bob', kind: 'schedule' })).entries).toEqual([]);
  });

  it('bad arguments come back to the model as the tool’s error, the run goes on, nothing is stored', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const { agent, schedules } = scheduling(store);
    const result = await agent.run(
      callTools(
        create({ cron: '61 * * * *', text: 'x' }),
        create({ cron: '0 9 * * *', timezone: 'Mars/Olympus', text: 'x' }),
        create({ at: iso(NOW - HOUR), text: 'x' }),
        create({ every: '5 minutes', text: 'x' }),
        create({ text: 'x' }),
        create({ at: iso(NOW + HOUR), endAt: 'next week', text: 'x' }),
        create({ at: iso(NOW + HOUR), text: '' }),
      ),
      alice,
    );
    expect(result.interrupted).toBe(false);
    const outputs = (await results(store, result)).map((r) => [r.isError, r.output]);
    expect(outputs).toEqual([
      [true, expect.stringMatching(/cron "61 \* \* \* \*" does not parse/)],
      [true, expect.stringContaining('timezone "Mars/Olympus" is not an IANA time zone')],
      [true, expect.stringContaining(`at ${iso(NOW - HOUR)} is in the past (now ${iso(NOW)})`)],
      [true, expect.stringContaining('every "5 minutes" is not an interval')],
      [true, expect.stringContaining('rule is missing: give one of cron, every or at')],
      [true, expect.stringContaining('endAt "next week" is not an ISO 8601 time')],
      [true, expect.stringContaining('arguments do not match the schema')],
    ]);
    expect(result.output).toContain('create_schedule (error)');
    expect((await schedules.list({ userId: 'alice' })).schedules).toEqual([]);
    expect((await schedules.list({ userId: 'bob' })).schedules).toEqual([]);
    expect((await store.readAudit({ userId: 'alice', kind: 'schedule' })).entries).toEqual([]);
  });

  it('needsApproval: the create waits for a human; approved it is stored, rejected nothing is', async () => {
    const { store } = await temps.open();
    const { agent, schedules } = scheduling(store, { needsApproval: true });
    const ask = callTools(create({ at: iso(NOW + 2 * HOUR), text: 'Remind alice of the dentist' }));

    const paused = await agent.run(ask, alice);
    expect(paused.interruptionReason).toBe('approval');
    expect(paused.interruptions.map((i) => i.toolName)).toEqual(['create_schedule']);
    expect((await schedules.list({ userId: 'alice' })).schedules).toEqual([]);
    const approved = await agent.approve(alice.sessionId, paused.interruptions[0]!.callId, {
      userId: 'alice',
      by: 'carol',
    });
    expect(approved.interrupted).toBe(false);
    const [stored] = (await schedules.list({ userId: 'alice' })).schedules;
    expect(stored).toMatchObject({ rule: { at: NOW + 2 * HOUR }, target: { sessionId: 'chat-a' } });

    const again = await agent.run(ask, { ...alice, sessionId: 'chat-c' });
    expect(again.interruptionReason).toBe('approval');
    const rejected = await agent.reject('chat-c', again.interruptions[0]!.callId, {
      userId: 'alice',
      message: 'No reminders today.',
    });
    expect(rejected.output).toContain('create_schedule (error): No reminders today.');
    expect((await schedules.list({ userId: 'alice' })).schedules.map((s) => s.id)).toEqual([
      stored!.id,
    ]);
  });

  it("the agent's permission policy applies: a denied create never runs, nothing is stored", async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const asked: string[] = [];
    const { agent, schedules } = scheduling(
      store,
      {},
      {
        check: (call) => {
          asked.push(call.name);
          return call.name === 'create_schedule' ? { deny: 'no schedules on this plan' } : 'allow';
        },
      },
    );
    const result = await agent.run(
      callTools(create({ every: '1h', text: 'x' }), { name: 'list_schedules', arguments: {} }),
      alice,
    );
    expect(asked.sort()).toEqual(['create_schedule', 'list_schedules']);
    const [denied, listed] = await results(store, result);
    expect(denied).toMatchObject({
      isError: true,
      output: 'Permission denied for "create_schedule": no schedules on this plan',
    });
    expect(JSON.parse(listed!.output)).toEqual({ schedules: [], total: 0 });
    expect((await schedules.list({ userId: 'alice' })).schedules).toEqual([]);
  });

  it('maxSchedulesPerUser: past it the model reads ScheduleLimitError, also between calls of one turn', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const { agent, schedules } = scheduling(store, { maxSchedulesPerUser: 2 });
    const result = await agent.run(
      callTools(
        create({ every: '1h', text: 'one' }),
        create({ every: '1h', text: 'two' }),
        create({ every: '1h', text: 'three' }),
      ),
      alice,
    );
    const outputs = await results(store, result);
    expect(outputs.map((r) => Boolean(r.isError))).toEqual([false, false, true]);
    expect(outputs[2]!.output).toContain('has 2 schedules already, the most allowed');
    expect((await schedules.list({ userId: 'alice' })).schedules).toHaveLength(2);
    // another user has a limit of their own
    const other = await agent.run(callTools(create({ every: '1h', text: 'mine' })), bob);
    expect((await results(store, other))[0]!.isError).toBeFalsy();
  });

  it("allowTargets 'new-sessions' lets the model send the ticks to a session of their own; by default they go to the run's", async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const ask = callTools(create({ every: '1d', text: 'digest', newSession: true }));
    const own = scheduling(store);
    await own.agent.run(ask, alice);
    const opened = scheduling(store, { allowTargets: 'new-sessions' });
    await opened.agent.run(ask, { ...alice, sessionId: 'chat-n' });
    const targets = (await own.schedules.list({ userId: 'alice' })).schedules.map((s) => [
      s.id,
      s.target.type === 'message' && s.target.sessionId,
    ]);
    expect(targets).toHaveLength(2);
    expect(targets).toContainEqual([expect.any(String), 'chat-a']);
    const made = targets.find(([, session]) => session !== 'chat-a')!;
    expect(made[1]).toBe(`schedule-${made[0]}`);
  });

  it('the same call run again (after a crash) creates the schedule once', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const clock = new FakeClock(NOW);
    const kit = scheduleTools({ store, agent: 'assistant', clock });
    const context = new RunContext({ runId: 'run-1', sessionId: 'chat-a', userId: 'alice' });
    const { tools } = await kit.create(context);
    const tool = tools.find((t) => t.name === 'create_schedule')!;
    const call = { context, signal: new AbortController().signal, callId: 'call_1_0' };
    const args = { every: '1d', text: 'daily' };
    const first = await tool.execute(args, call);
    const second = await tool.execute(args, call);
    expect(second).toEqual(first);
    expect((await openSchedules(store).list({ userId: 'alice' })).schedules).toHaveLength(1);
  });

  it('the scheduler fires the model’s schedule into the run’s session, as a run of the agent', async () => {
    const store = new MemorySessionStore();
    temps.defer(() => store.close());
    const { agent, clock, schedules } = scheduling(store);
    const made = await agent.run(callTools(create({ at: iso(NOW + HOUR), text: '[]' })), alice);
    const { id } = (await schedules.list({ userId: 'alice' })).schedules[0]!;
    const scheduler = agent.startScheduler({ schedules: { pollMs: 60_000 } });
    temps.defer(() => scheduler.stop());
    await until(() => clock.pendingSleepers > 0, 'the scheduler to wait');
    clock.set(NOW + HOUR);
    await until(
      async () => (await schedules.get(id, { userId: 'alice' })).lastTick !== undefined,
      'the tick to settle',
    );
    const { lastTick } = await schedules.get(id, { userId: 'alice' });
    expect(lastTick).toMatchObject({ tick: NOW + HOUR, outcome: 'started', sessionId: 'chat-a' });
    expect(lastTick!.runId).not.toBe(made.id);
    // the tick's text reached alice's session as its next user message
    const history = await store.readHistory(alice);
    const users = history.filter((i) => i.type === 'message' && i.role === 'user');
    expect(users.map((i) => i.type === 'message' && i.content)).toEqual([
      callTools(create({ at: iso(NOW + HOUR), text: '[]' })),
      '[]',
    ]);
  });
});
