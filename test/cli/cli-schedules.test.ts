import { afterAll, describe, expect, it } from 'vitest';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, LevelSessionStore, openSchedules } from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/** Issue 44, operators: `agentstate schedules list|add|pause|resume|delete|next`. */
const temps = new TempStores();
afterAll(() => temps.cleanupAll());

/** Saturday 2027-03-20 10:00 UTC: Berlin goes to summer time on Sunday the 28th. */
const T0 = Date.UTC(2027, 2, 20, 10);

let template: string;

/** A folder where alice has session `weekly` and bob `b1`, both run by agent `digest`. */
async function fixture(): Promise<string> {
  if (!template) {
    template = join(await temps.folder(), 'db');
    const store = await LevelSessionStore.open({ path: template });
    try {
      const clock = new FakeClock(T0);
      const model = new ScriptedModel(() => ({ text: 'noted' }));
      const agent = new Agent({ name: 'digest', model, store, clock });
      await agent.run('hello', { sessionId: 'weekly', userId: 'alice' });
      await agent.run('hello from bob', { sessionId: 'b1', userId: 'bob' });
    } finally {
      await store.close();
    }
  }
  const path = join(await temps.folder(), 'db');
  await cp(template, path, { recursive: true });
  return path;
}

async function withStore<T>(db: string, use: (store: LevelSessionStore) => Promise<T>) {
  const store = await LevelSessionStore.open({ path: db });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

const everything = (db: string) => withStore(db, (store) => dumpBackend(store));

const parsed = <T = Record<string, unknown>>(text: string): T => JSON.parse(text) as T;

/** The cells of a table's lines (two spaces or more apart). */
const cells = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

const WEEKLY = [
  'schedules',
  'add',
  '--id',
  'weekly',
  '--cron',
  '0 9 * * 1',
  '--tz',
  'Europe/Berlin',
  '--agent',
  'digest',
  '--session',
  'weekly',
  '--text',
  'Send the digest',
];

describe('agentstate schedules', () => {
  it('has help: the commands are listed, each with an example', async () => {
    const help = await cliInProcess(['--help']);
    for (const name of ['list', 'add', 'pause', 'resume', 'delete', 'next']) {
      expect(help.stdout).toContain(`  schedules ${name} `);
      const own = await cliInProcess(['schedules', name, '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`Examples:\\n {2}agentstate schedules ${name} `));
    }
    expect((await cliInProcess(['schedules', 'next', '--help'])).stdout).toMatch(
      /^agentstate schedules next \[<scheduleId>\] \[options\]/,
    );
    const which = await cliInProcess(['schedules']);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain(
      'schedules: which one? list, add, pause, resume, delete or next',
    );
  });

  it('adds a cron schedule in a zone, lists it and prints its next five fire times across the change to summer time, audited via cli', async () => {
    const db = await fixture();
    const clock = new FakeClock(T0);
    const cli = (...args: string[]) => cliInProcess([...args, '--db', db], {}, clock);
    const added = await cli(...WEEKLY, '--user', 'alice', '--description', 'Monday digest');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toBe(
      'created schedule weekly: cron 0 9 * * 1 (Europe/Berlin), message target; next 2027-03-22T09:00:00+01:00\n',
    );

    const next = await cli('schedules', 'next', 'weekly', '--user', 'alice');
    expect(next.stdout).toBe(
      [
        'schedule weekly (cron 0 9 * * 1), the next 5 fire times in Europe/Berlin:',
        '2027-03-22T09:00:00+01:00  Europe/Berlin',
        '2027-03-29T09:00:00+02:00  Europe/Berlin',
        '2027-04-05T09:00:00+02:00  Europe/Berlin',
        '2027-04-12T09:00:00+02:00  Europe/Berlin',
        '2027-04-19T09:00:00+02:00  Europe/Berlin',
        '',
      ].join('\n'),
    );
    const asJson = parsed<{ zone: string; next: { at: number; time: string }[] }>(
      (await cli('schedules', 'next', 'weekly', '--user', 'alice', '--json', '--count', '2'))
        .stdout,
    );
    expect(asJson).toMatchObject({
      id: 'weekly',
      rule: { cron: '0 9 * * 1', timezone: 'Europe/Berlin' },
      zone: 'Europe/Berlin',
      next: [
        { at: Date.UTC(2027, 2, 22, 8), time: '2027-03-22T09:00:00+01:00' },
        { at: Date.UTC(2027, 2, 29, 7), time: '2027-03-29T09:00:00+02:00' },
      ],
    });

    const listed = await cli('schedules', 'list', '--user', 'alice');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(cells(listed.stdout)).toEqual([
      ['ID', 'RULE', 'ZONE', 'NEXT', 'PAUSED', 'RUNS', 'LAST TICK', 'OUTCOME', 'RUN'],
      [
        'weekly',
        'cron 0 9 * * 1',
        'Europe/Berlin',
        '2027-03-22T09:00:00+01:00',
        'no',
        '0',
        '-',
        '-',
        '-',
      ],
    ]);
    // bob sees none of alice's
    expect((await cli('schedules', 'list', '--user', 'bob')).stdout).toBe(
      'no schedules of user bob\n',
    );

    const audit = await withStore(db, (store) =>
      store.readAudit({ userId: 'alice', kind: 'schedule' }),
    );
    expect(audit.entries).toEqual([
      expect.objectContaining({
        kind: 'schedule',
        action: 'create',
        scheduleId: 'weekly',
        sessionId: 'weekly',
        via: 'cli',
        at: T0,
      }),
    ]);
  });

  it('adds interval and one-time schedules with workflow targets, and lists them as JSON in pages', async () => {
    const db = await fixture();
    const clock = new FakeClock(T0);
    const cli = (...args: string[]) =>
      cliInProcess([...args, '--db', db, '--user', 'alice'], {}, clock);
    const every = await cli(
      'schedules',
      'add',
      '--id',
      'check',
      '--every',
      '15m',
      '--workflow',
      'orders',
      '--instance',
      'order-7',
      '--event',
      '{"type":"CHECK","deep":true}',
      '--overlap',
      'queue',
      '--catch-up',
      'all:3',
      '--max-runs',
      '10',
    );
    expect(every.stdout).toBe(
      'created schedule check: every 900s, event target; next 2027-03-20T10:15:00+00:00\n',
    );
    const once = await cli(
      'schedules',
      'add',
      '--id',
      'report',
      '--at',
      '2027-04-01T08:00:00Z',
      '--workflow',
      'report',
      '--instance',
      'q1',
      '--start',
      '--input',
      '{"quarter":1}',
      '--json',
    );
    expect(parsed(once.stdout)).toMatchObject({
      id: 'report',
      userId: 'alice',
      rule: { at: Date.UTC(2027, 3, 1, 8) },
      target: { type: 'start', workflow: 'report', instanceId: 'q1', input: { quarter: 1 } },
      nextAt: Date.UTC(2027, 3, 1, 8),
    });
    const first = await cli('schedules', 'list', '--limit', '1', '--json');
    const page = parsed<{ schedules: { id: string }[]; nextCursor?: string }>(first.stdout);
    expect(page.schedules.map((s) => s.id)).toEqual(['check']);
    const rest = await cli('schedules', 'list', '--limit', '1', '--cursor', page.nextCursor!);
    expect(cells(rest.stdout)[1]).toEqual([
      'report',
      'at 2027-04-01T08:00:00+00:00',
      'UTC',
      '2027-04-01T08:00:00+00:00',
      'no',
      '0',
      '-',
      '-',
      '-',
    ]);
    const listed = cells((await cli('schedules', 'list')).stdout);
    expect(listed[1]).toEqual([
      'check',
      'every 15m',
      'UTC',
      '2027-03-20T10:15:00+00:00',
      'no',
      '0/10',
      '-',
      '-',
      '-',
    ]);
    const stored = await withStore(db, (store) =>
      openSchedules(store).get('check', { userId: 'alice' }),
    );
    expect(stored).toMatchObject({
      overlap: 'queue',
      catchUp: { all: 3 },
      maxRuns: 10,
      target: { type: 'event', event: { type: 'CHECK', deep: true } },
    });
  });

  it('pauses, resumes (the next tick from now) and deletes, each audited via cli', async () => {
    const db = await fixture();
    const clock = new FakeClock(T0);
    const cli = (...args: string[]) =>
      cliInProcess([...args, '--db', db, '--user', 'alice'], {}, clock);
    expect((await cli(...WEEKLY)).code).toBe(0);
    const paused = await cli('schedules', 'pause', 'weekly');
    expect(paused.stdout).toBe('paused schedule weekly: no tick fires until it is resumed\n');
    expect(cells((await cli('schedules', 'list')).stdout)[1]!.slice(3, 5)).toEqual(['-', 'paused']);
    expect((await cli('schedules', 'next', 'weekly')).stdout).toContain(
      '(paused: none fires until it is resumed)',
    );
    clock.set(Date.UTC(2027, 2, 23, 12)); // Tuesday: Monday's tick was due while paused
    const resumed = await cli('schedules', 'resume', 'weekly');
    expect(resumed.stdout).toBe('resumed schedule weekly: next 2027-03-29T09:00:00+02:00\n');
    const deleted = await cli('schedules', 'delete', 'weekly');
    expect(deleted.stdout).toBe('deleted schedule weekly: no more ticks (runs it started stay)\n');
    expect((await cli('schedules', 'list')).stdout).toBe('no schedules of user alice\n');
    const gone = await cli('schedules', 'pause', 'weekly');
    expect(gone.code).toBe(3);
    expect(gone.stderr).toBe('agentstate: No schedule "weekly" [SCHEDULE_NOT_FOUND]\n');

    const audit = await withStore(db, (store) =>
      store.readAudit({ userId: 'alice', kind: 'schedule' }),
    );
    expect(audit.entries.map((e) => [e.action, e.via, e.scheduleId])).toEqual([
      ['create', 'cli', 'weekly'],
      ['pause', 'cli', 'weekly'],
      ['resume', 'cli', 'weekly'],
      ['delete', 'cli', 'weekly'],
    ]);
  });

  it('shows the last tick a scheduler fired: its outcome and run', async () => {
    const db = await fixture();
    const clock = new FakeClock(T0);
    const cli = (...args: string[]) =>
      cliInProcess([...args, '--db', db, '--user', 'alice'], {}, clock);
    expect((await cli(...WEEKLY)).code).toBe(0);
    const runId = await withStore(db, async (store) => {
      const model = new ScriptedModel(() => ({ text: 'digest sent' }));
      const agent = new Agent({ name: 'digest', model, store, clock });
      const scheduler = agent.startScheduler();
      const schedules = openSchedules(store);
      try {
        while (clock.pendingSleepers === 0) await new Promise((r) => setImmediate(r));
        clock.set(Date.UTC(2027, 2, 22, 8));
        for (;;) {
          const info = await schedules.get('weekly', { userId: 'alice' });
          if (info.lastTick) return info.lastTick.runId;
          await new Promise((r) => setImmediate(r));
        }
      } finally {
        await scheduler.stop();
      }
    });
    expect(runId).toEqual(expect.any(String));
    const row = cells((await cli('schedules', 'list')).stdout)[1];
    expect(row).toEqual([
      'weekly',
      'cron 0 9 * * 1',
      'Europe/Berlin',
      '2027-03-29T09:00:00+02:00',
      'no',
      '1',
      '2027-03-22T09:00:00+01:00',
      'started',
      runId,
    ]);
  });

  it('prints the next fire times of a rule not saved, in its zone (autumn too), without a folder', async () => {
    const clock = new FakeClock(Date.UTC(2027, 9, 20, 10));
    const cli = (...args: string[]) => cliInProcess(args, {}, clock);
    const cron = await cli(
      'schedules',
      'next',
      '--cron',
      '0 9 * * 1',
      '--tz',
      'Europe/Berlin',
      '--count',
      '3',
    );
    expect(cron).toMatchObject({ code: 0, stderr: '' });
    expect(cron.stdout).toBe(
      [
        'cron 0 9 * * 1, the next 3 fire times in Europe/Berlin:',
        '2027-10-25T09:00:00+02:00  Europe/Berlin',
        '2027-11-01T09:00:00+01:00  Europe/Berlin',
        '2027-11-08T09:00:00+01:00  Europe/Berlin',
        '',
      ].join('\n'),
    );
    const every = await cli('schedules', 'next', '--every', '15m', '--count', '2');
    expect(every.stdout).toBe(
      [
        'every 15m, the next 2 fire times in UTC:',
        '2027-10-20T10:15:00+00:00  UTC',
        '2027-10-20T10:30:00+00:00  UTC',
        '',
      ].join('\n'),
    );
    const both = await cli('schedules', 'next', 'weekly', '--cron', '0 9 * * 1');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--cron is for a rule not saved: leave out the schedule id');
    const none = await cli('schedules', 'next');
    expect(none.code).toBe(2);
    const bad = await cli('schedules', 'next', '--cron', '61 * * * *');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cron "61 \* \* \* \*" does not parse.*\[INVALID_SCHEDULE\]/);
  });

  it('refuses bad input with a usage or typed error and its exit code, and stores nothing', async () => {
    const db = await fixture();
    const clock = new FakeClock(T0);
    const cli = (...args: string[]) => cliInProcess([...args, '--db', db], {}, clock);
    expect((await cli(...WEEKLY, '--user', 'alice')).code).toBe(0);
    const before = await everything(db);
    const target = ['--agent', 'digest', '--session', 'weekly', '--text', 'hi'];
    const cases: [string[], number, RegExp][] = [
      [
        ['schedules', 'add', '--cron', '0 25 * * *', ...target],
        2,
        /cron "0 25 \* \* \*" does not parse.*\[INVALID_SCHEDULE\]/,
      ],
      [
        ['schedules', 'add', '--cron', '0 9 * * 1', '--tz', 'Mars/Olympus', ...target],
        2,
        /timezone "Mars\/Olympus" is not an IANA time zone \[INVALID_SCHEDULE\]/,
      ],
      [
        ['schedules', 'add', '--at', '2027-03-19T09:00:00Z', ...target],
        2,
        /at 2027-03-19T09:00:00.000Z is in the past.*\[INVALID_SCHEDULE\]/,
      ],
      [['schedules', 'add', '--every', '15m', '--bogus', ...target], 2, /Unknown option '--bogus'/],
      [
        [
          'schedules',
          'add',
          '--every',
          '15m',
          '--workflow',
          'w',
          '--instance',
          'i',
          '--event',
          '{x',
        ],
        2,
        /must be JSON.*\[INVALID_EVENT\]/,
      ],
      [
        [
          'schedules',
          'add',
          '--every',
          '15m',
          '--workflow',
          'w',
          '--instance',
          'i',
          '--start',
          '--input',
          '{x',
        ],
        2,
        /--input must be JSON/,
      ],
      [
        ['schedules', 'add', '--every', '15m', '--catch-up', 'most', ...target],
        2,
        /--catch-up must be none, latest or all:N/,
      ],
      [
        ['schedules', 'add', '--every', '15m', '--overlap', 'wait', ...target],
        2,
        /overlap must be 'skip', 'queue' or 'interrupt'.*\[INVALID_SCHEDULE\]/,
      ],
      [['schedules', 'add', '--every', '15m'], 2, /give one target/],
      [
        ['schedules', 'add', '--every', '15m', ...target, '--start'],
        2,
        /--start is not for a message target/,
      ],
      // the id alice has already
      [[...WEEKLY], 4, /Schedule "weekly" exists already \[SCHEDULE_EXISTS\]/],
      // bob's session is not alice's
      [
        [
          'schedules',
          'add',
          '--every',
          '15m',
          '--agent',
          'digest',
          '--session',
          'b1',
          '--text',
          'hi',
        ],
        2,
        /target\.sessionId "b1" is not a session of this user.*\[INVALID_SCHEDULE\]/,
      ],
    ];
    for (const [args, code, message] of cases) {
      const got = await cli(...args, '--user', 'alice');
      expect({ args, code: got.code, stdout: got.stdout }).toEqual({ args, code, stdout: '' });
      expect(got.stderr).toMatch(message);
    }
    // alice's schedule is no schedule of bob's: not found, never changed
    for (const verb of ['pause', 'resume', 'delete', 'next']) {
      const asBob = await cli('schedules', verb, 'weekly', '--user', 'bob');
      expect(asBob.code).toBe(3);
      expect(asBob.stderr).toBe('agentstate: No schedule "weekly" [SCHEDULE_NOT_FOUND]\n');
    }
    expect(await everything(db)).toEqual(before);
  });
});
