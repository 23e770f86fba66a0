import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReplay } from '../src/index.js';
import {
  ROOT,
  buildCli,
  runCli,
  writeAgentModule,
  writeFixtureFolder,
  type BuiltCli,
} from './helpers/cli-fixtures.js';

let cli: BuiltCli;
let work: string;
let shared: string;
let fresh = 0;

beforeAll(async () => {
  cli = await buildCli();
  work = await mkdtemp(join(tmpdir(), 'agentstate-cli-'));
  shared = join(work, 'shared');
  await writeFixtureFolder(shared);
}, 240_000);

afterAll(async () => {
  await cli?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A fixture folder of its own, for a test that changes it. */
async function freshFolder(): Promise<string> {
  const path = join(work, `db-${++fresh}`);
  await writeFixtureFolder(path);
  return path;
}

const as = (db: string, ...args: string[]) => runCli(cli, [...args, '--db', db]);
const parsed = <T>(stdout: string) => JSON.parse(stdout) as T;
const ALICE_JSON = ['--user', 'alice', '--json'];
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('agentstate command line (the built binary)', () => {
  it('--version, --help and each command --help with an example', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    expect(pkg.bin['agentstate']).toBe('dist/cli.js');
    expect(readFileSync(cli.bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const version = await runCli(cli, ['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    const help = await runCli(cli, ['--help']);
    expect(help.code).toBe(0);
    const names = [
      'sessions list',
      'sessions show',
      'sessions history',
      'sessions fork',
      'sessions delete',
      'approve',
      'reject',
      'resume',
      'cancel',
      'export',
      'inspect',
    ];
    for (const name of names) {
      expect(help.stdout).toContain(`  ${name} `);
      const own = await runCli(cli, [...name.split(' '), '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`^agentstate ${name}`));
      expect(own.stdout).toMatch(new RegExp(`Examples:\\n  agentstate ${name} `));
    }
    expect((await runCli(cli, [])).code).toBe(2);
  }, 240_000);

  it('sessions list: one partition, a note about named users, --all-users, filters, --json', async () => {
    const alice = await as(shared, 'sessions', 'list', '--user', 'alice', '--json');
    expect(alice.code).toBe(0);
    const ids = parsed<{ sessionId: string; userId: string }[]>(alice.stdout).map(
      (s) => s.sessionId,
    );
    expect(ids).toEqual(['chat', 'to-cancel', 'tree', 'waiting']);
    expect(alice.stderr).toBe('');

    const anonymous = await as(shared, 'sessions', 'list', '--json');
    expect(parsed<{ sessionId: string }[]>(anonymous.stdout).map((s) => s.sessionId)).toEqual([
      'anon-1',
    ]);
    expect(lines(anonymous.stderr)).toEqual([
      expect.stringMatching(/^note: no --user given: this is the anonymous bucket; .*named users/),
    ]);

    const all = await as(shared, 'sessions', 'list', '--all-users', '--json');
    const owners = parsed<{ sessionId: string; userId?: string }[]>(all.stdout).map(
      (s) => `${s.userId ?? '-'}/${s.sessionId}`,
    );
    expect(owners).toEqual([
      '-/anon-1',
      'alice/chat',
      'alice/to-cancel',
      'alice/tree',
      'alice/waiting',
      'bob/bob-chat',
    ]);
    const human = await as(shared, 'sessions', 'list', '--all-users');
    expect(lines(human.stdout)[0]).toMatch(/^SESSION\s+USER\s+STATUS\s+VERSION\s+ITEMS/);
    expect(human.stdout).toContain('(anonymous)');
    expect(human.stdout).not.toContain('\u001b['); // no colour when not on a terminal

    const limited = await as(
      shared,
      'sessions',
      'list',
      '--user',
      'alice',
      '--limit',
      '2',
      '--json',
    );
    expect(parsed<unknown[]>(limited.stdout)).toHaveLength(2);
    const bob = await as(
      shared,
      'sessions',
      'list',
      '--user',
      'bob',
      '--status',
      'deleted',
      '--json',
    );
    expect(parsed<unknown[]>(bob.stdout)).toEqual([]);
  }, 180_000);

  it('sessions show and history: state, pending approvals, last run, history tail', async () => {
    const show = await as(shared, 'sessions', 'show', 'waiting', '--user', 'alice', '--json');
    expect(show.code).toBe(0);
    const view = parsed<Record<string, unknown>>(show.stdout);
    expect(view).toMatchObject({
      sessionId: 'waiting',
      userId: 'alice',
      status: 'active',
      state: 'active.running',
      run: { state: 'awaitingApproval', held: false },
      pendingApprovals: [{ callId: 'c-prod', tool: 'danger', agentPath: ['assistant'] }],
    });
    expect((view['historyTail'] as unknown[]).length).toBe(2);

    const tree = await as(shared, 'sessions', 'show', 'tree', '--user', 'alice', '--json');
    expect(parsed<{ pendingApprovals: unknown[] }>(tree.stdout).pendingApprovals).toEqual([
      expect.objectContaining({ tool: 'refund', agentPath: ['triage', 'billing'] }),
    ]);

    const human = await as(shared, 'sessions', 'show', 'chat', '--user', 'alice');
    expect(human.stdout).toMatch(/^session\s+chat$/m);
    expect(human.stdout).toMatch(/^last run\s+\S+ completed, 1 turns/m);
    expect(human.stdout).toMatch(/^history \(last 4 of 4\)$/m);
    expect(human.stdout).toMatch(/^3\s+assistant\s+reply: how are you\?$/m);

    const history = await as(
      shared,
      'sessions',
      'history',
      'chat',
      '--user',
      'alice',
      '--from',
      '2',
      '--json',
    );
    expect(parsed<{ position: number }[]>(history.stdout).map((h) => h.position)).toEqual([2, 3]);
  }, 180_000);

  it("a missing session, another user's session and a missing folder are not found (exit 3)", async () => {
    const missing = await as(shared, 'sessions', 'show', 'nope', '--user', 'alice');
    expect(missing.code).toBe(3);
    expect(lines(missing.stderr)).toEqual([
      'agentstate: Session "nope" was not found [SESSION_NOT_FOUND]',
    ]);
    const other = await as(shared, 'sessions', 'show', 'bob-chat', '--user', 'alice');
    expect(other.code).toBe(3);
    expect(other.stdout).toBe('');
    const anonymous = await as(shared, 'sessions', 'show', 'chat');
    expect(anonymous.code).toBe(3);
    expect(anonymous.stderr).toContain('note: no --user given');
    for (const command of [
      ['sessions', 'history', 'bob-chat'],
      ['sessions', 'fork', 'bob-chat', 'stolen'],
      ['sessions', 'delete', 'bob-chat'],
      ['approve', 'bob-chat', 'c-1'],
      ['cancel', 'bob-chat'],
      ['export', 'bob-chat'],
    ]) {
      expect((await as(shared, ...command, '--user', 'alice')).code).toBe(3);
    }
    const noFolder = await as(join(work, 'nowhere'), 'sessions', 'list');
    expect(noFolder.code).toBe(3);
    expect(existsSync(join(work, 'nowhere'))).toBe(false);
  }, 180_000);

  it('bad flags and arguments are usage errors (exit 2), one line each; --debug adds the stack', async () => {
    const cases: [string[], RegExp][] = [
      [['sessions', 'list', '--bogus'], /Unknown option '--bogus'.*sessions list --help/],
      [['sessions', 'list', '--limit', '0'], /--limit must be an integer of at least 1, got "0"/],
      [['sessions', 'list', '--limit', 'ten'], /--limit must be an integer/],
      [['sessions', 'list', '--status', 'happy'], /--status must be one of active, suspended/],
      [['sessions', 'list', '--all-users', '--user', 'a'], /exclude each other/],
      [['sessions', 'show'], /missing <sessionId>/],
      [['sessions', 'show', 'a', 'b'], /unexpected argument "b"/],
      [['sessions', 'fork', 'chat', 'x', '--at', '1.5'], /--at must be an integer of at least 0/],
      [['sessions', 'lst'], /unknown command "sessions lst" \(did you mean "sessions list"\?\)/],
      [['sessions'], /which one\?/],
      [['resume', 'chat'], /--agent <module> is required/],
      [['sessions', 'show', 'chat', '--user', ''], /--user must not be empty/],
    ];
    for (const [args, message] of cases) {
      const result = await as(shared, ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(lines(result.stderr), args.join(' ')).toEqual([expect.stringMatching(message)]);
    }
    const debug = await as(shared, 'sessions', 'show', 'nope', '--debug');
    expect(debug.code).toBe(3);
    expect(debug.stderr).toMatch(/SessionNotFoundError: Session "nope" was not found\n\s+at /);
  }, 180_000);

  it('a folder held by a running app is one line: stop the app or use its inspector', async () => {
    const db = await freshFolder();
    const holder: ChildProcess = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { LevelSessionStore } from ${JSON.stringify(cli.index)};
         await LevelSessionStore.open({ path: ${JSON.stringify(db)} });
         console.log('ready');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        holder.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
      });
      const locked = await as(db, 'sessions', 'list', '--user', 'alice');
      expect(locked.code).toBe(1);
      expect(lines(locked.stderr)).toEqual([
        `agentstate: the folder ${db} is held by a running app [STORE_LOCKED]: stop the app, or use the app's inspector`,
      ]);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 180_000);

  it('fork (with --at), delete and purge; conflicts exit 4', async () => {
    const db = await freshFolder();
    const fork = await as(db, ...'sessions fork chat chat-b --at 2 --user alice --json'.split(' '));
    expect(fork.code).toBe(0);
    expect(parsed<Record<string, unknown>>(fork.stdout)).toMatchObject({
      sessionId: 'chat-b',
      userId: 'alice',
      parentId: 'chat',
      historyLength: 2,
    });
    const again = await as(db, 'sessions', 'fork', 'chat', 'chat-b', '--user', 'alice');
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/already exists \[SESSION_CONFLICT\]/);
    const far = await as(db, 'sessions', 'fork', 'chat', 'chat-c', '--at', '99', '--user', 'alice');
    expect(far.code).toBe(4);
    expect(far.stderr).toMatch(/FORK_POSITION_OUT_OF_RANGE/);
    const human = await as(db, 'sessions', 'fork', 'waiting', 'calm', '--user', 'alice');
    expect(human.stdout).toBe('forked calm from waiting with 0 history item(s)\n');

    const del = await as(db, 'sessions', 'delete', 'chat-b', '--user', 'alice');
    expect(del).toMatchObject({ code: 0 });
    const tomb = await as(db, 'sessions', 'show', 'chat-b', '--user', 'alice', '--json');
    expect(parsed<{ status: string }>(tomb.stdout).status).toBe('deleted');
    expect((await as(db, 'sessions', 'delete', 'chat-b', '--user', 'alice')).code).toBe(4);
    const purge = await as(db, 'sessions', 'delete', 'chat-b', '--purge', ...ALICE_JSON);
    expect(parsed<Record<string, unknown>>(purge.stdout)).toMatchObject({ purged: true });
    expect((await as(db, 'sessions', 'show', 'chat-b', '--user', 'alice')).code).toBe(3);
  }, 180_000);

  it("approve records the decision; resume --agent runs the call with the app's tools", async () => {
    const db = await freshFolder();
    const marker = join(work, `ran-${fresh}.txt`);
    const module = await writeAgentModule(cli, join(cli.dir, `app-${fresh}`), marker);
    const approve = await as(db, 'approve', 'waiting', 'c-prod', '--user', 'alice');
    expect(approve.code).toBe(0);
    expect(approve.stdout).toMatch(/^approved call c-prod of waiting: recorded/);
    expect(existsSync(marker)).toBe(false);
    const shown = await as(db, 'sessions', 'show', 'waiting', '--user', 'alice', '--json');
    expect(parsed<Record<string, unknown>>(shown.stdout)).toMatchObject({
      run: { state: 'awaitingApproval', held: true },
      pendingApprovals: [],
    });
    expect((await as(db, 'approve', 'waiting', 'c-prod', '--user', 'alice')).code).toBe(3);

    const resumed = await as(db, 'resume', 'waiting', '--agent', module, ...ALICE_JSON);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(parsed<Record<string, unknown>>(resumed.stdout)).toMatchObject({
      output: 'after done: prod',
      interrupted: false,
    });
    expect(readFileSync(marker, 'utf8')).toBe('prod\n');
    expect((await as(db, 'resume', 'waiting', '--agent', module, '--user', 'alice')).code).toBe(4);
    const notAgent = await as(
      db,
      'resume',
      'waiting',
      '--agent',
      join(work, 'none.mjs'),
      '--user',
      'alice',
    );
    expect(notAgent.code).toBe(1);
  }, 180_000);

  it("reject with a message (a sub-agent's call, by its id) and cancel", async () => {
    const db = await freshFolder();
    const tree = parsed<{ pendingApprovals: { callId: string }[] }>(
      (await as(db, 'sessions', 'show', 'tree', '--user', 'alice', '--json')).stdout,
    );
    const callId = tree.pendingApprovals[0]!.callId;
    const reject = await as(db, 'reject', 'tree', callId, '--message', 'not today', ...ALICE_JSON);
    expect(reject.code).toBe(0);
    expect(parsed<Record<string, unknown>>(reject.stdout)).toMatchObject({
      callId,
      decision: 'rejected',
    });
    const after = parsed<{ pendingApprovals: unknown[] }>(
      (await as(db, 'sessions', 'show', 'tree', '--user', 'alice', '--json')).stdout,
    );
    expect(after.pendingApprovals).toEqual([]);

    const cancel = await as(db, 'cancel', 'to-cancel', '--user', 'alice');
    expect(cancel.code).toBe(0);
    expect(cancel.stdout).toMatch(/^cancelled run \S+ of to-cancel$/m);
    const shown = parsed<{ lastRun: { status: string }; run?: unknown }>(
      (await as(db, 'sessions', 'show', 'to-cancel', '--user', 'alice', '--json')).stdout,
    );
    expect(shown.lastRun.status).toBe('cancelled');
    expect(shown.run).toBeUndefined();
    expect((await as(db, 'cancel', 'to-cancel', '--user', 'alice')).code).toBe(4);
  }, 180_000);

  it('export writes the replay file (progress on stderr); it loads with parseReplay', async () => {
    const out = join(work, 'incident.json');
    const result = await as(shared, 'export', 'tree', '--user', 'alice', '--out', out);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^wrote .*incident\.json: run \S+ \(tools\), 2 run\(s\), 3 model answer\(s\)/,
    );
    expect(lines(result.stderr)).toEqual([
      'exporting tree: 1 run(s) read',
      'exporting tree: 2 run(s) read',
    ]);
    const replay = parseReplay(readFileSync(out, 'utf8'));
    expect(replay.session).toEqual({ sessionId: 'tree', userId: 'alice' });
    expect(replay.runs.map((r) => r.agentPath.join('>'))).toEqual(['triage', 'triage>billing']);
    const stdout = await as(shared, 'export', 'chat', '--user', 'alice');
    expect(parseReplay(stdout.stdout).run.output).toBe('reply: how are you?');
    const noRun = await as(shared, 'export', 'chat', '--run', 'nope', '--user', 'alice');
    expect(noRun.code).toBe(3);
    expect(noRun.stderr).toMatch(/RUN_NOT_FOUND/);
  }, 180_000);

  it('inspect serves the inspector page for the folder until stopped', async () => {
    const db = await freshFolder();
    const server = spawn(
      process.execPath,
      [cli.bin, 'inspect', '--port', '0', '--user', 'alice', '--json', '--db', db],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TZ: 'UTC' } },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve((JSON.parse(out) as { url: string }).url);
        });
        server.on('exit', (code) => reject(new Error(`inspect exited with ${code}`)));
      });
      // the address it prints carries the token: the page trades it for a cookie
      const [, origin, token] = /^(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)$/.exec(url)!;
      expect((await fetch(`${origin}/`)).status).toBe(403);
      const traded = await fetch(url, { redirect: 'manual' });
      expect([traded.status, traded.headers.get('location')]).toEqual([303, '/']);
      const cookie = traded.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(`${origin}/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const list = (await (
        await fetch(`${origin}/api/sessions`, { headers: { cookie } })
      ).json()) as {
        sessions: { sessionId: string }[];
      };
      expect(list.sessions.map((s) => s.sessionId)).toContain('waiting');
      const bob = await fetch(`${origin}/api/sessions?user=bob`, { headers: { cookie } });
      expect(bob.status).toBe(403);
      // without --agent the page can decide nothing that would run the tools here
      const approve = await fetch(`${origin}/api/sessions/waiting/approve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-agentstate-token': token! },
        body: JSON.stringify({ callId: 'c-prod' }),
      });
      expect(approve.status).toBe(400);
      expect(JSON.stringify(await approve.json())).toContain('--agent');
      const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
    const bad = await as(db, 'inspect', '--port', '70000');
    expect(bad.code).toBe(2);
    const still = await as(db, 'sessions', 'show', 'waiting', ...ALICE_JSON);
    expect(parsed<{ pendingApprovals: unknown[] }>(still.stdout).pendingApprovals).toHaveLength(1);
  }, 180_000);

  it('--db defaults to AGENTSTATE_DIR, else ./.agentstate', async () => {
    const viaEnv = await runCli(cli, ['sessions', 'list', '--user', 'bob', '--json'], {
      env: { AGENTSTATE_DIR: shared },
    });
    expect(parsed<{ sessionId: string }[]>(viaEnv.stdout).map((s) => s.sessionId)).toEqual([
      'bob-chat',
    ]);
    const cwd = await mkdtemp(join(work, 'cwd-'));
    await writeFixtureFolder(join(cwd, '.agentstate'));
    const viaCwd = await runCli(cli, ['sessions', 'list', '--user', 'bob', '--json'], { cwd });
    expect(parsed<{ sessionId: string }[]>(viaCwd.stdout).map((s) => s.sessionId)).toEqual([
      'bob-chat',
    ]);
  }, 180_000);
});
