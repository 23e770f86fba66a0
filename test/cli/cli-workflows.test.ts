import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { operator } from '../../src/cli/shared/operator.js';
import { LevelSessionStore } from '../../src/index.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { ESCALATE_AT, writeWorkflowFolder } from '../helpers/workflow-records.js';

/** Issue 42, operators: `agentstate workflows list|show|send|cancel|approve|reject`. */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** A folder with the fixture's workflow instances (see `writeWorkflowFolder`). */
async function folder(): Promise<string> {
  const path = join(await temps.folder(), 'db');
  await writeWorkflowFolder(path);
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
    expect(listed.code).toBe(0);
    expect(cells(listed.stdout)).toEqual([
      ['WORKFLOW', 'NAME', 'STATUS', 'STATE', 'UPDATED', 'NEXT TIMER', 'WAITING'],
      [
        'order-1',
        'orders',
        'active',
        'refund.drafting',
        '2026-11-28 09:01:00',
        '2026-12-01 09:00:00',
        'awaiting approval',
      ],
      ['order-2', 'orders', 'completed', 'shipped', '2026-11-28 09:01:00', '-'],
    ]);
    const done = await cli(db, 'alice', 'workflows', 'list', '--status', 'completed', '--json');
    expect(JSON.parse(done.stdout)).toEqual([
      expect.objectContaining({ id: 'order-2', status: 'completed', output: { ok: true } }),
    ]);
    const first = await cli(db, 'alice', 'workflows', 'list', '--limit', '1', '--json');
    expect(parsed<{ id: string }[]>(first.stdout).map((w) => w.id)).toEqual(['order-1']);
    const bob = await cli(db, 'bob', 'workflows', 'list', '--json');
    expect(parsed<{ id: string }[]>(bob.stdout).map((w) => w.id)).toEqual(['order-b']);
    const all = await cliInProcess(['workflows', 'list', '--all-users', '--db', db]);
    expect(cells(all.stdout).map((row) => row.slice(0, 2))).toEqual([
      ['WORKFLOW', 'USER'],
      ['order-1', 'alice'],
      ['order-2', 'alice'],
      ['order-b', 'bob'],
    ]);
    const none = await cli(db, 'carol', 'workflows', 'list');
    expect(none).toMatchObject({ code: 0, stdout: 'no workflows of user carol\n' });
    expect((await cli(db, 'alice', 'workflows', 'list', '--status', 'done')).code).toBe(2);
  });

  it('shows an instance: state, status, context, timers with due times, steps in flight, its agent session and its pending approval, the path with times', async () => {
    const db = await folder();
    const shown = await cli(db, 'alice', 'workflows', 'show', 'order-1');
    expect(shown.code).toBe(0);
    const [summary, timers, steps, agents, approvals, path] = shown.stdout.split('\n\n');
    expect(summary).toMatch(/^workflow +order-1$/m);
    expect(summary).toMatch(/^status +active$/m);
    expect(summary).toMatch(/^state +refund\.drafting$/m);
    expect(summary).toMatch(/^next timer +2026-12-01 09:00:00$/m);
    expect(summary).toMatch(/^context +\{"orderId":"o-1","amount":40\}$/m);
    expect(cells(timers!)).toEqual([
      ['timers'],
      ['TIMER', 'EVENT', 'DUE'],
      ['escalate', 'xstate.after.259200000.order.refund', '2026-12-01 09:00:00'],
    ]);
    expect(cells(steps!)).toEqual([
      ['steps in flight'],
      ['ACTOR', 'STEP', 'STARTED', 'RESTARTS'],
      ['check', 'checkStock', '2026-11-28 09:00:30', '0'],
    ]);
    expect(cells(agents!)).toEqual([
      ['agent sessions'],
      ['ACTOR', 'SESSION', 'STATUS', 'VIA', 'WAITING'],
      ['drafter', 'order-1~drafter', 'active', 'order-1', '1 approval'],
    ]);
    expect(cells(approvals!)).toEqual([
      ['pending approvals'],
      ['CALL', 'TOOL', 'ARGUMENTS', 'SESSION', 'AGENT', 'DEADLINE'],
      ['c-refund', 'refund', '{"amount":40}', 'order-1~drafter', 'drafter', '-'],
    ]);
    expect(cells(path!)).toEqual([
      ['path (3 events)'],
      ['#', 'AT', 'SOURCE', 'EVENT', 'STATE'],
      ['0', '2026-11-28 09:00:00', 'start', 'xstate.init', 'validating'],
      ['1', '2026-11-28 09:00:10', 'step', 'xstate.done.actor.validate', 'awaitingPayment'],
      ['2', '2026-11-28 09:00:20', 'send', 'PAID', 'refund.drafting'],
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
      nextTimerAt: ESCALATE_AT,
      timers: [{ id: 'escalate', dueAt: ESCALATE_AT }],
      steps: { check: { name: 'checkStock' } },
      path: [{ source: 'start' }, { source: 'step' }, { source: 'send', eventId: 'paid-1' }],
      linkedSessions: [
        {
          actorId: 'drafter',
          key: { sessionId: 'order-1~drafter', userId: 'alice' },
          pending: [{ callId: 'c-refund', tool: 'refund' }],
        },
      ],
    });
  });

  it('send queues the event in the instance inbox, for the process that hosts it; an event id it applied is not queued again', async () => {
    const db = await folder();
    const sent = await cli(
      db,
      'alice',
      'workflows',
      'send',
      'order-1',
      '{"type":"SHIP","carrier":"ups"}',
      '--event-id',
      'ship-1',
    );
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    expect(sent.stdout).toBe(
      'event SHIP (event id ship-1) queued in the inbox of workflow order-1: the process that hosts it applies it, once\n',
    );
    const bare = await cli(db, 'alice', 'workflows', 'send', 'order-1', 'NUDGE', '--json');
    const { eventId } = parsed<{ eventId: string }>(bare.stdout);
    expect(JSON.parse(bare.stdout)).toMatchObject({ queued: true, type: 'NUDGE' });
    const inbox = await reading(db, (store) =>
      store.queuedMessages({ sessionId: 'workflow:order-1', userId: 'alice' }),
    );
    expect(inbox.map((m) => m.options)).toEqual([
      { event: { type: 'SHIP', carrier: 'ups' }, eventId: 'ship-1' },
      { event: { type: 'NUDGE' }, eventId },
    ]);
    expect(inbox.map((m) => m.items)).toEqual([[], []]);

    const before = await everything(db);
    const again = await cli(
      db,
      'alice',
      'workflows',
      'send',
      'order-1',
      'PAID',
      '--event-id',
      'paid-1',
    );
    expect(again).toMatchObject({
      code: 0,
      stdout: 'event id paid-1 was applied to workflow order-1 already: nothing queued\n',
    });
    expect(await everything(db)).toEqual(before);
  });

  it('cancel queues a cancel in the inbox, with the reason', async () => {
    const db = await folder();
    const cancelled = await cli(
      db,
      'alice',
      'workflows',
      'cancel',
      'order-1',
      '--reason',
      'customer left',
    );
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(/^cancel of workflow order-1 queued in its inbox/);
    const inbox = await reading(db, (store) =>
      store.queuedMessages({ sessionId: 'workflow:order-1', userId: 'alice' }),
    );
    expect(inbox.map((m) => m.options)).toEqual([
      { cancel: { reason: 'customer left', ...(operator() ? { by: operator() } : {}) } },
    ]);
  });

  it('approve and reject by workflow id decide the call of the agent session it invoked (recorded, audited, held for the host)', async () => {
    const db = await folder();
    const approved = await cli(db, 'alice', 'workflows', 'approve', 'order-1', 'c-refund');
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe(
      'approved call c-refund of workflow order-1 (agent session order-1~drafter, invoked as drafter): recorded; the app runs it on when it hosts the workflow again\n',
    );
    const shown = parsed<{ linkedSessions: unknown }>(
      (await cli(db, 'alice', 'workflows', 'show', 'order-1', '--json')).stdout,
    );
    expect(shown.linkedSessions).toEqual([expect.objectContaining({ pending: [], held: true })]);
    const audit = await reading(db, (store) =>
      store.readAudit({ userId: 'alice', kind: 'approval' }),
    );
    expect(audit.entries).toEqual([
      expect.objectContaining({ sessionId: 'order-1~drafter', callId: 'c-refund', via: 'cli' }),
    ]);
    // Decided once: a second decision says what was recorded, and changes nothing.
    const before = await everything(db);
    const twice = await cli(
      db,
      'alice',
      'workflows',
      'reject',
      'order-1',
      'c-refund',
      '--message',
      'no',
    );
    expect(twice.code).toBe(4);
    expect(twice.stderr).toMatch(/already approved.*\[ALREADY_DECIDED\]/);
    expect(await everything(db)).toEqual(before);
  });

  it('reject records the message the model reads', async () => {
    const db = await folder();
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
    expect(JSON.parse(rejected.stdout)).toMatchObject({
      workflowId: 'order-1',
      sessionId: 'order-1~drafter',
      callId: 'c-refund',
      decision: 'rejected',
      recorded: true,
    });
  });

  describe('bad input: a typed error with its exit code, and nothing stored changes', () => {
    const cases: [string, string, string[], number, RegExp][] = [
      [
        'an unknown id',
        'alice',
        ['show', 'order-9'],
        3,
        /Workflow "order-9" was not found \[WORKFLOW_NOT_FOUND\]/,
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
        /"chat" is not a workflow: it is a session .*\[WORKFLOW_MISMATCH\]/,
      ],
      ['a session id (send)', 'alice', ['send', 'chat', 'SHIP'], 3, /\[WORKFLOW_MISMATCH\]/],
      [
        'a session id (approve)',
        'alice',
        ['approve', 'order-1~drafter', 'c-refund'],
        3,
        /\[WORKFLOW_MISMATCH\]/,
      ],
      [
        'malformed event JSON',
        'alice',
        ['send', 'order-1', '{"type":'],
        2,
        /the event must be JSON/,
      ],
      [
        'an event without a type',
        'alice',
        ['send', 'order-1', '{"kind":"SHIP"}'],
        2,
        /needs a "type"/,
      ],
      ['an event that is not an object', 'alice', ['send', 'order-1', '[1]'], 2, /a JSON object/],
      [
        "one of XState's own events",
        'alice',
        ['send', 'order-1', 'xstate.done.actor.pay'],
        2,
        /XState's own events/,
      ],
      [
        'an ended instance',
        'alice',
        ['send', 'order-2', 'SHIP'],
        4,
        /Workflow "order-2" is completed/,
      ],
      ['an ended instance (cancel)', 'alice', ['cancel', 'order-2'], 4, /is completed/],
      [
        'a call no agent of it waits on',
        'alice',
        ['approve', 'order-1', 'c-9'],
        3,
        /No tool call "c-9" .*\[UNKNOWN_CALL\]/,
      ],
      ['a bad --path', 'alice', ['show', 'order-1', '--path', '0'], 2, /--path must be an integer/],
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
