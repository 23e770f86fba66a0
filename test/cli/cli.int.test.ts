import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReplay } from '../../src/index.js';
import { PAGE_SCRIPT } from '../../generated/inspector-page-script.js';
import {
  ROOT,
  buildCli,
  runCli,
  writeAgentModule,
  writeFixtureFolder,
  type BuiltCli,
} from '../helpers/cli-fixtures.js';

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
      'send',
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

  it('send --agent runs a message; a bad --while-busy is a usage error and stores nothing', async () => {
    const db = await freshFolder();
    const module = await writeAgentModule(cli, join(cli.dir, `app-${fresh}`), join(work, 'x'));
    const bad = await as(db, 'send', 'new-chat', 'hi', '--agent', module, '--while-busy', 'later');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /--while-busy must be 'reject', 'queue', 'steer' or 'interrupt', got "later"/,
    );
    expect((await as(db, 'sessions', 'show', 'new-chat', '--user', 'alice')).code).toBe(3);
    const sent = await as(
      db,
      'send',
      'new-chat',
      'hi',
      '--agent',
      module,
      '--while-busy',
      'queue',
      ...ALICE_JSON,
    );
    expect(sent.stderr).toBe('');
    expect(parsed<Record<string, unknown>>(sent.stdout)).toMatchObject({
      sessionId: 'new-chat',
      userId: 'alice',
      output: 'ok',
      interrupted: false,
    });
    const history = await as(db, 'sessions', 'history', 'new-chat', ...ALICE_JSON);
    expect(history.stdout).toContain('"hi"');
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
    // Deciding again says what was recorded (exit 4, nothing changes).
    const twice = await as(db, 'approve', 'waiting', 'c-prod', '--user', 'alice');
    expect(twice.code).toBe(4);
    expect(twice.stderr).toBe(
      'agentstate: Tool call "c-prod" was already approved (recorded; it runs when the app resumes the run) [ALREADY_DECIDED]\n',
    );
    const rejectAfter = await as(db, 'reject', 'waiting', 'c-prod', '--user', 'alice');
    expect(rejectAfter.code).toBe(4);
    expect(rejectAfter.stderr).toMatch(/"c-prod" was already approved .*\[ALREADY_DECIDED\]/);
    expect((await as(db, 'approve', 'waiting', 'c-none', '--user', 'alice')).code).toBe(3);

    // `tree` is run by agent triage: the assistant refuses it and nothing changes.
    const treeBefore = (await as(db, 'sessions', 'show', 'tree', ...ALICE_JSON)).stdout;
    const wrong = await as(db, 'resume', 'tree', '--agent', module, '--user', 'alice');
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toBe(
      'agentstate: Session "tree"\'s run is run by agent "triage", not "assistant": continue it with agent "triage" [WRONG_AGENT]\n',
    );
    expect((await as(db, 'sessions', 'show', 'tree', ...ALICE_JSON)).stdout).toBe(treeBefore);

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

  it('resume --agent with the agent defined otherwise than the run is DEFINITION_CHANGED (exit 4); nothing changes', async () => {
    const db = await freshFolder();
    const marker = join(work, `ran-${fresh}.txt`);
    const folder = join(cli.dir, `app-${fresh}`);
    const module = await writeAgentModule(cli, folder, marker, "\n  instructions: 'Reworded.',");
    const before = (await as(db, 'sessions', 'show', 'waiting', ...ALICE_JSON)).stdout;
    const changed = await as(db, 'resume', 'waiting', '--agent', module, '--user', 'alice');
    expect(changed.code).toBe(4);
    expect(changed.stderr).toBe(
      `agentstate: Session "waiting"'s run was started by another definition of agent "assistant" (changed: instructions): resume it with the definition it started with, or declare the change compatible (compatibleWith) [DEFINITION_CHANGED]\n`,
    );
    expect((await as(db, 'sessions', 'show', 'waiting', ...ALICE_JSON)).stdout).toBe(before);
    expect(existsSync(marker)).toBe(false);
    // Declared compatible, the same module's agent resumes it.
    const declared = await writeAgentModule(
      cli,
      `${folder}-compatible`,
      marker,
      "\n  instructions: 'Reworded.',\n  compatibleWith: ({ changes }) => changes.every((c) => c.part === 'instructions'),",
    );
    const approve = await as(db, 'approve', 'waiting', 'c-prod', '--user', 'alice');
    expect(approve.code).toBe(0);
    const resumed = await as(db, 'resume', 'waiting', '--agent', declared, ...ALICE_JSON);
    expect(resumed.stderr).toBe('');
    expect(parsed<Record<string, unknown>>(resumed.stdout)).toMatchObject({ interrupted: false });
    expect(readFileSync(marker, 'utf8')).toBe('prod\n');
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
    const twice = await as(db, 'reject', 'tree', callId, '--user', 'alice');
    expect(twice.code).toBe(4);
    expect(twice.stderr).toMatch(
      new RegExp(`Tool call "${callId}" was already rejected \\(recorded; .*\\[ALREADY_DECIDED\\]`),
    );

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

  /** Starts `agentstate inspect` on `db` and resolves with the process and the page's url. */
  async function startInspect(db: string, ...flags: string[]) {
    const server = spawn(
      process.execPath,
      [cli.bin, 'inspect', '--port', '0', '--user', 'alice', '--json', '--db', db, ...flags],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TZ: 'UTC' } },
    );
    const started = new Promise<{ url: string; agents: string[] }>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out) as { url: string; agents: string[] });
      });
      server.on('exit', (code) => reject(new Error(`inspect exited with ${code}`)));
    });
    const stop = async () => {
      const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
      server.kill('SIGTERM');
      return exited;
    };
    return { server, started, stop };
  }

  /** The printed address's origin and the token it carries. */
  function addressParts(url: string): { origin: string; token: string } {
    const [, origin, token] = /^(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)$/.exec(url)!;
    return { origin: origin!, token: token! };
  }

  /** An action of the inspector at `url`, as a script sends it (the token in its header). */
  async function pageAction(url: string, path: string, body: unknown = {}) {
    const { origin, token } = addressParts(url);
    const res = await fetch(`${origin}/api/sessions/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-agentstate-token': token },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it('inspect serves the inspector page for the folder until stopped', async () => {
    const db = await freshFolder();
    const { server, started, stop } = await startInspect(db);
    try {
      const { url, agents } = await started;
      expect(agents).toEqual([]);
      // the address it prints carries the token: the page trades it for a cookie
      const { origin } = addressParts(url);
      expect((await fetch(`${origin}/`)).status).toBe(403);
      const traded = await fetch(url, { redirect: 'manual' });
      expect([traded.status, traded.headers.get('location')]).toEqual([303, '/']);
      const cookie = traded.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(`${origin}/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      // the built package serves the page's script bundled from src/inspect/page/browser/
      const script = await fetch(`${origin}/app.js`, { headers: { cookie } });
      expect(script.headers.get('content-type')).toContain('text/javascript');
      expect(await script.text()).toBe(PAGE_SCRIPT);
      const list = (await (
        await fetch(`${origin}/api/sessions`, { headers: { cookie } })
      ).json()) as {
        sessions: { sessionId: string }[];
      };
      expect(list.sessions.map((s) => s.sessionId)).toContain('waiting');
      const bob = await fetch(`${origin}/api/sessions?user=bob`, { headers: { cookie } });
      expect(bob.status).toBe(403);
      // Without --agent the page records the decision (as `approve` does); it runs nothing.
      expect(
        await (await fetch(`${origin}/api/info`, { headers: { cookie } })).json(),
      ).toMatchObject({
        recordOnly: true,
      });
      const approve = await pageAction(url, 'waiting/approve', { callId: 'c-prod' });
      expect(approve).toEqual({
        status: 200,
        json: {
          recorded: true,
          callId: 'c-prod',
          decision: 'approved',
          note: 'recorded: the run continues when the app resumes it',
        },
      });
      const resume = await pageAction(url, 'waiting/resume');
      expect([resume.status, JSON.stringify(resume.json)]).toEqual([
        400,
        expect.stringContaining('"NO_AGENT"') as string,
      ]);
      expect(await stop()).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
    const bad = await as(db, 'inspect', '--port', '70000');
    expect(bad.code).toBe(2);
    const held = await as(db, 'sessions', 'show', 'waiting', ...ALICE_JSON);
    expect(parsed<Record<string, unknown>>(held.stdout)).toMatchObject({
      run: { state: 'awaitingApproval', held: true },
      pendingApprovals: [],
    });
  }, 180_000);

  it("inspect --agent runs approvals with the app's agent, and refuses another agent's session (WRONG_AGENT, nothing changes)", async () => {
    const db = await freshFolder();
    const marker = join(work, `ran-${fresh}.txt`);
    const module = await writeAgentModule(cli, join(cli.dir, `app-${fresh}`), marker);
    const treeBefore = (await as(db, 'sessions', 'show', 'tree', ...ALICE_JSON)).stdout;
    const { server, started, stop } = await startInspect(db, '--agent', module);
    try {
      const { url, agents } = await started;
      expect(agents).toEqual(['assistant']);
      // `tree` is run by agent triage: the assistant may not continue it.
      const tree = await pageAction(url, 'tree/resume');
      expect(tree.status).toBe(409);
      expect(tree.json).toEqual({
        error: {
          code: 'WRONG_AGENT',
          message:
            'Session "tree"\'s run is run by agent "triage", which this inspector does not serve (it serves "assistant")',
        },
      });
      const approve = await pageAction(url, 'waiting/approve', { callId: 'c-prod' });
      expect(approve).toMatchObject({ status: 200, json: { interrupted: false } });
      expect(readFileSync(marker, 'utf8')).toBe('prod\n');
      expect(await stop()).toBe(0);
    } finally {
      server.kill('SIGKILL');
    }
    expect((await as(db, 'sessions', 'show', 'tree', ...ALICE_JSON)).stdout).toBe(treeBefore);
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

/** Runs the binary with its stdout a pipe whose reading end is closed at once (`| head -0`). */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli.bin, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TZ: 'UTC' },
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/**
 * The command line used the way an outside tester did (issue 26): its output piped into a
 * reader that stops early, a TypeScript agent module, a folder that is no store, an empty
 * `--out`. Each ends in one clear line and the exit code docs/reference/cli.md gives.
 */
describe('the command line, misused', () => {
  it('a reader that closes stdout early (`| head`) ends it quietly, exit 0', async () => {
    for (const args of [
      ['sessions', 'list', '--all-users'],
      ['sessions', 'show', 'chat', '--user', 'alice', '--json'],
      ['export', 'tree', '--user', 'alice'],
    ]) {
      const result = await runWithClosedStdout([...args, '--db', shared]);
      expect(result.stderr, args.join(' ')).not.toMatch(/EPIPE|Error|at /);
      expect(result.code, args.join(' ')).toBe(0);
    }
  }, 180_000);

  it('a TypeScript --agent module is a usage error saying how to load it (exit 2)', async () => {
    const app = join(work, 'ts-app');
    await mkdir(app, { recursive: true });
    // An enum: TypeScript that no Node version runs by stripping types.
    await writeFile(join(app, 'agent.ts'), 'enum Mode { A }\nexport const agent = Mode.A;\n');
    for (const command of [
      ['resume', 'waiting', '--user', 'alice'],
      ['inspect', '--user', 'alice'],
    ]) {
      const result = await runCli(cli, [...command, '--agent', './agent.ts', '--db', shared], {
        cwd: app,
      });
      expect(result.code, command[0]).toBe(2);
      const [line, ...more] = lines(result.stderr);
      expect(more).toEqual([]);
      expect(line).toMatch(/^agentstate: --agent: \.\/agent\.ts is TypeScript/);
      expect(line).toMatch(/build it to \.js/);
      expect(line).toMatch(/tsx/);
      expect(line).not.toMatch(/Unknown file extension/);
    }
  }, 180_000);

  it('a folder that is no store is not found (exit 3) and gets no files', async () => {
    const empty = join(work, 'empty');
    await mkdir(empty);
    const documents = join(work, 'Documents');
    await mkdir(documents);
    await writeFile(join(documents, 'notes.txt'), 'my notes\n');
    const commands = [
      ['sessions', 'list'],
      ['sessions', 'list', '--all-users'],
      ['sessions', 'show', 'chat', '--user', 'alice'],
      ['sessions', 'history', 'chat', '--user', 'alice'],
      ['export', 'chat', '--user', 'alice'],
      ['approve', 'waiting', 'c-prod', '--user', 'alice'],
      ['sessions', 'delete', 'chat', '--user', 'alice'],
    ];
    for (const folder of [empty, documents]) {
      const before = await readdir(folder);
      for (const command of commands) {
        const result = await runCli(cli, [...command, '--db', folder]);
        const what = `${command.join(' ')} in ${folder}`;
        expect(result.code, what).toBe(3);
        expect(result.stdout, what).toBe('');
        expect(lines(result.stderr), what).toEqual([
          `agentstate: ${folder} is not an agentstate folder: it holds no LevelDB database (give --db <folder> or set AGENTSTATE_DIR)`,
        ]);
      }
      expect(await readdir(folder)).toEqual(before);
    }
    // The folder of an app still works, and `.` resolves like any other path.
    const listed = await runCli(cli, ['sessions', 'list', '--user', 'bob', '--db', '.'], {
      cwd: shared,
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('bob-chat');
  }, 180_000);

  it('export --out with no file name, or a folder, is a usage error (exit 2)', async () => {
    for (const out of ['', work]) {
      const result = await runCli(cli, [
        'export',
        'chat',
        '--user',
        'alice',
        '--db',
        shared,
        '--out',
        out,
      ]);
      expect(result.code, JSON.stringify(out)).toBe(2);
      expect(lines(result.stderr)).toEqual([
        expect.stringMatching(
          /^agentstate: --out must name a file.*\(see: agentstate export --help\)$/,
        ),
      ]);
      expect(result.stderr).not.toMatch(/EISDIR/);
    }
  }, 180_000);
});
