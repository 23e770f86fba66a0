import { join } from 'node:path';
import { cp } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { T0, THREE_DAYS, orderWorkflows, writeOrdersFolder } from '../helpers/order-workflows.js';
import { FakeClock } from '../../src/testing.js';

/** Issue 42, operators: `agentstate workflows list|show|send|cancel|approve|reject`. */
const temps = new TempStores();
const copies = new TempStores();
afterEach(() => copies.cleanupAll());

/** The fixture's instances, written once for the file by the real host (see `writeOrders`). */
let template: string;
beforeAll(async () => {
  template = join(await temps.folder(), 'db');
  await writeOrdersFolder(template);
}, 60_000);
afterAll(() => temps.cleanupAll());

/** A copy of the fixture's folder for one test. */
async function folder(): Promise<string> {
  const path = join(await copies.folder(), 'db');
  await cp(template, path, { recursive: true });
  return path;
}

const cli = (db: string, user: string, ...args: string[]) =>
  cliInProcess([...args, '--db', db, '--user', user]);

/** Opens the folder, gives `read` its store, closes it. */
async function reading<T>(db: string, read: (store: LevelSessionStore) => Promise<T>): Promise<T> {
  const store = await LevelSessionStore.open({ path: db });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

const everything = (db: string) => reading(db, (store) => dumpBackend(store));

/** What waits in the inbox of alice's instance `id`. */
const inbox = (db: string, id: string) =>
  reading(db, (store) => store.queuedMessages({ sessionId: `workflow:${id}`, userId: 'alice' }));

/** A command's `--json` output. */
const parsed = <T = Record<string, unknown>>(text: string): T => JSON.parse(text) as T;

/** The cells of a table's lines (two spaces or more apart). */
const cells = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

describe('agentstate workflows', () => {
  it('has help: the commands are listed, each with an example', async () => {
    const help = await cliInProcess(['--help']);
    for (const name of ['list', 'show', 'send', 'cancel', 'approve', 'reject']) {
      expect(help.stdout).toContain(`  workflows ${name} `);
      const own = await cliInProcess(['workflows', name, '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`^agentstate workflows ${name}`));
      expect(own.stdout).toMatch(new RegExp(`Examples:\\n {2}agentstate workflows ${name} `));
    }
    const which = await cliInProcess(['workflows']);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain(
      'workflows: which one? list, show, send, cancel, approve or reject',
    );
  });

  it("lists a user's instances only (not sessions, not another user's), by status, in pages, as a table or JSON", async () => {
    const db = await folder();
    const listed = await cli(db, 'alice', 'workflows', 'list');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const at = '2026-11-28 09:00:10';
    const due = '2026-12-01 09:00:10';
    expect(cells(listed.stdout)).toEqual([
      ['WORKFLOW', 'NAME', 'STATUS', 'STATE', 'UPDATED', 'NEXT TIMER', 'WAITING'],
      ['order-1', 'orders', 'active', 'refund.drafting', at, due, '1 approval'],
      ['order-2', 'orders', 'completed', 'shipped', at, '-'],
      ['order-3', 'orders', 'active', 'checking', at, '-'],
      ['order-4', 'orders', 'cancelled', 'awaitingPayment', at, '-'],
      ['order-5', 'orders', 'active', 'awaitingPayment', at, due],
      ['order-6', 'orders', 'active', 'awaitingPayment', at, due],
    ]);
    const done = await cli(db, 'alice', 'workflows', 'list', '--status', 'completed', '--json');
    expect(parsed(done.stdout)).toEqual([
      expect.objectContaining({ id: 'order-2', status: 'completed', value: 'shipped' }),
    ]);
    const first = await cli(db, 'alice', 'workflows', 'list', '--limit', '2', '--json');
    expect(parsed<{ id: string }[]>(first.stdout).map((w) => w.id)).toEqual(['order-1', 'order-2']);
    const bob = await cli(db, 'bob', 'workflows', 'list', '--json');
    expect(parsed<{ id: string }[]>(bob.stdout).map((w) => w.id)).toEqual(['order-b']);
    const all = await cliInProcess(['workflows', 'list', '--all-users', '--db', db]);
    expect(all.stderr).toBe('');
    expect(cells(all.stdout).map((row) => row.slice(0, 2))).toEqual([
      ['WORKFLOW', 'USER'],
      ...['order-1', 'order-2', 'order-3', 'order-4', 'order-5', 'order-6'].map((id) => [
        id,
        'alice',
      ]),
      ['order-b', 'bob'],
    ]);
    const none = await cli(db, 'carol', 'workflows', 'list');
    expect(none).toMatchObject({ code: 0, stdout: 'no workflows of user carol\n' });
    expect((await cli(db, 'alice', 'workflows', 'list', '--status', 'done')).code).toBe(2);
  });

  it('shows an instance: state, status, context, timers with due times, its agent session and its pending approval, the path with times', async () => {
    const db = await folder();
    const shown = await cli(db, 'alice', 'workflows', 'show', 'order-1');
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    const [summary, timers, agents, approvals, path] = shown.stdout.split('\n\n');
    expect(summary).toMatch(/^workflow +order-1$/m);
    expect(summary).toMatch(/^status +active$/m);
    expect(summary).toMatch(/^state +refund\.drafting$/m);
    expect(summary).toMatch(/^next timer +2026-12-01 09:00:10$/m);
    expect(summary).toMatch(/^context +\{"orderId":"o-1","amount":40,"validated":true\}$/m);
    const timer = `xstate.after.${THREE_DAYS}.order.refund`;
    expect(cells(timers!)).toEqual([
      ['timers'],
      ['TIMER', 'EVENT', 'DUE'],
      [timer, timer, '2026-12-01 09:00:10'],
    ]);
    const linked = 'workflow:order-1/drafter';
    expect(cells(agents!)).toEqual([
      ['agent sessions'],
      ['ACTOR', 'AGENT', 'SESSION', 'STATUS', 'VIA', 'WAITING'],
      ['drafter', 'drafter', linked, 'active', 'order-1', '1 approval'],
    ]);
    expect(cells(approvals!)).toEqual([
      ['pending approvals'],
      ['CALL', 'TOOL', 'ARGUMENTS', 'SESSION', 'AGENT', 'DEADLINE'],
      ['c-refund', 'refund', '{"amount":40}', linked, 'drafter', '-'],
    ]);
    expect(cells(path!)).toEqual([
      ['path (3 events)'],
      ['#', 'AT', 'SOURCE', 'EVENT', 'STATE'],
      ['1', '2026-11-28 09:00:00', 'start', 'xstate.init', 'validating'],
      [
        '3',
        '2026-11-28 09:00:00',
        'step',
        'xstate.done.actor.0.order.validating',
        'awaitingPayment',
      ],
      ['4', '2026-11-28 09:00:10', 'send', 'REFUND', 'refund.drafting'],
    ]);
    const last = await cli(db, 'alice', 'workflows', 'show', 'order-1', '--path', '1');
    expect(last.stdout).toMatch(/^path \(last 1 of 3 events\)$/m);

    const asJson = parsed(
      (await cli(db, 'alice', 'workflows', 'show', 'order-1', '--json')).stdout,
    );
    expect(asJson).toMatchObject({
      id: 'order-1',
      userId: 'alice',
      workflow: 'orders',
      value: { refund: 'drafting' },
      context: { orderId: 'o-1', amount: 40 },
      nextTimerAt: T0 + 10_000 + THREE_DAYS,
      timers: [{ event: timer, dueAt: T0 + 10_000 + THREE_DAYS }],
      path: [{ source: 'start' }, { source: 'step' }, { source: 'send', eventId: 'refund-1' }],
      linkedSessions: [
        {
          actorId: 'drafter',
          key: { sessionId: linked, userId: 'alice' },
          pending: [{ callId: 'c-refund', tool: 'refund' }],
        },
      ],
    });
  });

  it('shows a step in flight, and a cancelled instance with why', async () => {
    const db = await folder();
    const checking = await cli(db, 'alice', 'workflows', 'show', 'order-3');
    expect(cells(checking.stdout.split('\n\n')[1]!)).toEqual([
      ['steps in flight'],
      ['ACTOR', 'STEP', 'STARTED', 'WAITING'],
      ['stock', 'checkStock', '2026-11-28 09:00:10'],
    ]);
    const cancelled = await cli(db, 'alice', 'workflows', 'show', 'order-4');
    expect(cancelled.stdout).toMatch(/^status +cancelled$/m);
    expect(cancelled.stdout).toMatch(/^cancelled +2026-11-28 09:00:10: customer left$/m);
    expect(cancelled.stdout).toMatch(/^4 +2026-11-28 09:00:10 +cancel +workflow\.cancel /m);
  });

  it('send queues the event in the instance inbox, for the process that hosts it; an event id it applied is not queued again', async () => {
    const db = await folder();
    const sent = await cli(
      db,
      'alice',
      'workflows',
      'send',
      'order-5',
      '{"type":"SHIP","carrier":"ups"}',
      '--event-id',
      'ship-5',
    );
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    expect(sent.stdout).toBe(
      'event SHIP (event id ship-5) queued in the inbox of workflow order-5: the process that hosts it applies it, once\n',
    );
    const bare = await cli(db, 'alice', 'workflows', 'send', 'order-5', 'STOCK', '--json');
    const { eventId } = parsed<{ eventId: string }>(bare.stdout);
    expect(parsed(bare.stdout)).toMatchObject({
      queued: true,
      type: 'STOCK',
      workflowId: 'order-5',
    });
    expect((await inbox(db, 'order-5')).map((m) => m.options)).toEqual([
      { workflow: { kind: 'event', event: { type: 'SHIP', carrier: 'ups' }, eventId: 'ship-5' } },
      { workflow: { kind: 'event', event: { type: 'STOCK' }, eventId } },
    ]);

    const before = await everything(db);
    const again = await cli(
      db,
      'alice',
      'workflows',
      'send',
      'order-1',
      'REFUND',
      '--event-id',
      'refund-1',
    );
    expect(again).toMatchObject({
      code: 0,
      stdout: 'event id refund-1 was applied to workflow order-1 already: nothing to do\n',
    });
    expect(await everything(db)).toEqual(before);
  });

  it('what the command line queued, the next process hosting the instances applies once, in order', async () => {
    const db = await folder();
    await cli(db, 'alice', 'workflows', 'send', 'order-5', 'SHIP', '--event-id', 'ship-5');
    await cli(db, 'alice', 'workflows', 'send', 'order-5', 'SHIP', '--event-id', 'ship-5');
    await cli(db, 'alice', 'workflows', 'cancel', 'order-6', '--reason', 'out of stock');
    await reading(db, async (store) => {
      const { orders } = orderWorkflows(store, new FakeClock(T0 + 60_000));
      try {
        for (const id of ['order-5', 'order-6']) {
          await orders.host.drive({ sessionId: `workflow:${id}`, userId: 'alice' }, id);
        }
        await orders.close();
        expect(await orders.get('order-5', { userId: 'alice' })).toMatchObject({
          value: 'shipped',
          status: 'completed',
        });
        expect(await orders.get('order-6', { userId: 'alice' })).toMatchObject({
          status: 'failed',
          cancelled: { reason: 'out of stock' },
        });
        const sends = (await orders.journal('order-5', { userId: 'alice' })).filter(
          (e) => (e.output as { source?: string }).source === 'send',
        );
        expect(sends.map((e) => e.output)).toEqual([
          expect.objectContaining({ type: 'SHIP', eventId: 'ship-5' }),
        ]);
      } finally {
        await orders.close();
      }
    });
    expect(await inbox(db, 'order-5')).toEqual([]);
    expect(await inbox(db, 'order-6')).toEqual([]);
  });

  it('cancel queues a cancel in the inbox, with the reason', async () => {
    const db = await folder();
    const cancelled = await cli(
      db,
      'alice',
      'workflows',
      'cancel',
      'order-5',
      '--reason',
      'customer left',
    );
    expect(cancelled).toMatchObject({ code: 0, stderr: '' });
    expect(cancelled.stdout).toBe(
      'cancel queued in the inbox of workflow order-5: the process that hosts it applies it, once\n',
    );
    expect((await inbox(db, 'order-5')).map((m) => m.options)).toEqual([
      { workflow: { kind: 'cancel', reason: 'customer left' } },
    ]);
  });

  it('approve and reject by workflow id queue the decision for the agent session that waits on the call', async () => {
    const db = await folder();
    const approved = await cli(db, 'alice', 'workflows', 'approve', 'order-1', 'c-refund');
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toBe(
      'approval of call c-refund (agent drafter, session workflow:order-1/drafter) queued in the inbox of workflow order-1: the process that hosts it applies it, once\n',
    );
    const rejected = await cli(
      db,
      'alice',
      'workflows',
      'reject',
      'order-1',
      'c-refund',
      '--message',
      'too much',
      '--json',
    );
    expect(parsed(rejected.stdout)).toMatchObject({
      workflowId: 'order-1',
      sessionId: 'workflow:order-1/drafter',
      actorId: 'drafter',
      callId: 'c-refund',
      decision: 'rejected',
      queued: true,
    });
    expect((await inbox(db, 'order-1')).map((m) => m.options)).toEqual([
      { workflow: { kind: 'decision', callId: 'c-refund', approve: true } },
      { workflow: { kind: 'decision', callId: 'c-refund', approve: false, message: 'too much' } },
    ]);
  });

  describe('bad input: a typed error with its exit code, and nothing stored changes', () => {
    const cases: [string, string, string[], number, RegExp][] = [
      [
        'an unknown id',
        'alice',
        ['show', 'order-9'],
        3,
        /Workflow instance "order-9" was not found \[WORKFLOW_NOT_FOUND\]/,
      ],
      ['an unknown id (send)', 'alice', ['send', 'order-9', 'SHIP'], 3, /\[WORKFLOW_NOT_FOUND\]/],
      ["another user's instance", 'alice', ['show', 'order-b'], 3, /\[WORKFLOW_NOT_FOUND\]/],
      [
        "another user's instance (send)",
        'alice',
        ['send', 'order-b', 'SHIP'],
        3,
        /\[WORKFLOW_NOT_FOUND\]/,
      ],
      [
        "another user's instance (cancel)",
        'bob',
        ['cancel', 'order-1'],
        3,
        /\[WORKFLOW_NOT_FOUND\]/,
      ],
      [
        "another user's instance (approve)",
        'bob',
        ['approve', 'order-1', 'c-refund'],
        3,
        /\[WORKFLOW_NOT_FOUND\]/,
      ],
      [
        'a session id',
        'alice',
        ['show', 'chat'],
        3,
        /"chat" is a session, not a workflow instance \[WORKFLOW_MISMATCH\]/,
      ],
      ['a session id (send)', 'alice', ['send', 'chat', 'SHIP'], 3, /\[WORKFLOW_MISMATCH\]/],
      [
        "an agent's linked session id (approve)",
        'alice',
        ['approve', 'workflow:order-1/drafter', 'c-refund'],
        3,
        /\[WORKFLOW_(NOT_FOUND|MISMATCH)\]/,
      ],
      [
        'malformed event JSON',
        'alice',
        ['send', 'order-5', '{"type":'],
        2,
        /must be JSON .*\[INVALID_EVENT\]/,
      ],
      [
        'an event without a type',
        'alice',
        ['send', 'order-5', '{"kind":"SHIP"}'],
        2,
        /"type".*\[INVALID_EVENT\]/,
      ],
      [
        'an event that is not an object',
        'alice',
        ['send', 'order-5', '[1]'],
        2,
        /\[INVALID_EVENT\]/,
      ],
      [
        "one of XState's own events",
        'alice',
        ['send', 'order-5', 'xstate.done.actor.0.order.checking'],
        2,
        /XState's own event.*\[INVALID_EVENT\]/,
      ],
      [
        'an event for a completed instance',
        'alice',
        ['send', 'order-2', 'SHIP'],
        4,
        /in state "shipped" does not accept event "SHIP".*\[EVENT_NOT_ACCEPTED\]/,
      ],
      [
        'an event for a cancelled instance',
        'alice',
        ['send', 'order-4', 'SHIP'],
        4,
        /\[WORKFLOW_CANCELLED\]/,
      ],
      ['a cancel of a completed instance', 'alice', ['cancel', 'order-2'], 4, /is completed/],
      [
        'a call no agent of it waits on',
        'alice',
        ['approve', 'order-1', 'c-9'],
        3,
        /No tool call "c-9" .*\[UNKNOWN_CALL\]/,
      ],
      [
        'a call of an instance without agents',
        'alice',
        ['reject', 'order-5', 'c-refund'],
        3,
        /\[UNKNOWN_CALL\]/,
      ],
      ['a bad --path', 'alice', ['show', 'order-1', '--path', '0'], 2, /--path must be an integer/],
      [
        '--module with --db',
        'alice',
        ['send', 'order-5', 'SHIP', '--module', './app.js'],
        2,
        /--module brings its hosts' store: leave out --db/,
      ],
    ];
    it.each(cases)('%s', async (_name, user, args, code, message) => {
      const db = await folder();
      const before = await everything(db);
      const run = await cli(db, user, 'workflows', ...args);
      expect(run.code).toBe(code);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
      expect(await everything(db)).toEqual(before);
    });
  });
});
