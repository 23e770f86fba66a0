import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli, writeFixtureFolder, type BuiltCli } from './helpers/cli-fixtures.js';

/**
 * The command line used the way an outside tester did (issue 26): its output piped into a
 * reader that stops early, a TypeScript agent module, a folder that is no store, an empty
 * `--out`. Each ends in one clear line and the exit code the README gives.
 */
let cli: BuiltCli;
let work: string;
let shared: string;

beforeAll(async () => {
  cli = await buildCli();
  work = await mkdtemp(join(tmpdir(), 'agentstate-cli-misuse-'));
  shared = join(work, 'shared');
  await writeFixtureFolder(shared);
}, 240_000);

afterAll(async () => {
  await cli?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

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
