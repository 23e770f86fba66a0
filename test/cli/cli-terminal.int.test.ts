import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  buildCli,
  runCli,
  writeFixtureFolder,
  writeManySessions,
  type BuiltCli,
} from '../helpers/cli-fixtures.js';

const exec = promisify(execFile);
const ARTIFACTS = join(ROOT, 'test-artifacts');

let cli: BuiltCli;
let work: string;
let db: string;

beforeAll(async () => {
  cli = await buildCli();
  work = await mkdtemp(join(tmpdir(), 'agentstate-cli-tty-'));
  db = join(work, 'db');
  await writeFixtureFolder(db);
}, 240_000);

afterAll(async () => {
  await cli?.cleanup();
  if (work) await rm(work, { recursive: true, force: true });
});

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g');
const strip = (text: string) => text.replace(ANSI, '');

/** Runs the built binary under a pseudo-terminal (util-linux `script`) and returns what it showed. */
async function onTerminal(args: string[], env: Record<string, string> = {}): Promise<string> {
  const command = [process.execPath, cli.bin, ...args].map(quote).join(' ');
  const { stdout } = await exec('script', ['-qfc', command, '/dev/null'], {
    env: { ...process.env, TZ: 'UTC', NO_COLOR: '', ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.replaceAll('\r\n', '\n');
}

/** Checks each row's cells start (left columns) or end (right columns) under their header. */
function expectAligned(table: string[], right: string[]) {
  const [header, ...rows] = table;
  const columns = [...header!.matchAll(/\S+/g)].map((m) => ({
    name: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    for (const c of columns) {
      if (right.includes(c.name)) {
        expect(row[c.end - 1], `${c.name} ends under its header in "${row}"`).not.toBe(' ');
        expect(row[c.end] ?? ' ', `${c.name} in "${row}"`).toBe(' ');
      } else if (row.length > c.start) {
        expect(row[c.start], `${c.name} starts under its header in "${row}"`).not.toBe(' ');
        if (c.start > 0) expect(row[c.start - 1]).toBe(' ');
      }
    }
  }
}

describe('the command line on a terminal', () => {
  it('sessions list and sessions show: coloured, aligned, local dates (capture kept in test-artifacts/)', async () => {
    const list = await onTerminal(['sessions', 'list', '--all-users', '--db', db]);
    const show = await onTerminal(['sessions', 'show', 'tree', '--user', 'alice', '--db', db]);
    const chat = await onTerminal(['sessions', 'show', 'chat', '--user', 'alice', '--db', db]);
    const plain = await onTerminal(['sessions', 'list', '--all-users', '--db', db], {
      NO_COLOR: '1',
    });
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      join(ARTIFACTS, 'cli-terminal.txt'),
      [
        '$ agentstate sessions list --all-users',
        strip(list),
        '$ agentstate sessions show tree --user alice',
        strip(show),
        '$ agentstate sessions show chat --user alice',
        strip(chat),
      ].join('\n'),
    );
    await writeFile(join(ARTIFACTS, 'cli-terminal.ansi'), list + show + chat);

    expect(list).toContain('\u001b[1mSESSION\u001b[0m'); // bold header on a terminal
    expect(list).toContain('\u001b[32mactive\u001b[0m'); // coloured status
    expect(plain).not.toContain('\u001b[');
    expect(strip(list)).toBe(plain);

    const table = plain.split('\n').filter((l) => l !== '');
    expect(table[0]).toMatch(
      /^SESSION +USER +STATUS +VERSION +ITEMS +TURNS +TOKENS +COST +UPDATED +RUN +WAITING$/,
    );
    expect(table).toHaveLength(7);
    expectAligned(table, ['VERSION', 'ITEMS', 'TURNS', 'TOKENS', 'COST']);
    expect(table[2]).toMatch(
      /^chat +alice +active +5 +4 +2 +30 +\$0\.0000 +2026-11-22 09:31:00 +completed$/,
    );

    const shown = strip(show).split('\n');
    const block = shown.slice(0, shown.indexOf(''));
    expect(block[0]).toMatch(/^session +tree$/);
    const valueColumn = block[0]!.indexOf('tree');
    for (const line of block) {
      expect(line[valueColumn - 1], line).toBe(' ');
      expect(line[valueColumn], line).not.toBe(' ');
    }
    const approvals = shown.slice(shown.indexOf('pending approvals') + 1);
    expectAligned(approvals.slice(0, approvals.indexOf('')), []);
    expect(approvals[1]).toMatch(
      /^call_\S+ +refund +\{"order":"9"\} +[0-9A-HJKMNP-TV-Z]{26} +triage > billing +-$/,
    );
    const history = strip(chat).split('\n');
    const tail = history
      .slice(history.indexOf('history (last 4 of 4)') + 1)
      .filter((l) => l !== '');
    expectAligned(tail, ['#']);
    expect(tail.at(-1)).toMatch(/^3 +assistant +reply: how are you\?$/);
    // times are local dates: the same instant in Tokyo
    const tokyo = await onTerminal(['sessions', 'list', '--user', 'bob', '--db', db], {
      TZ: 'Asia/Tokyo',
    });
    expect(strip(tokyo)).toMatch(/bob-chat .* 2026-11-22 18:31:00/);
  }, 240_000);

  it('lists 10,000 sessions with a progress line on stderr', async () => {
    const big = join(work, 'big');
    await writeManySessions(big, 'ops', 10_000);
    const piped = await runCli(cli, ['sessions', 'list', '--user', 'ops', '--db', big]);
    expect(piped.code).toBe(0);
    const rows = piped.stdout.split('\n').filter((l) => l !== '');
    expect(rows).toHaveLength(10_001);
    expect(rows[10_000]).toMatch(/^bulk-09999 +active +1 +0 +0 +0 +\$0\.0000 /);
    const progress = piped.stderr.split('\n').filter((l) => l !== '');
    expect(progress[0]).toBe('listing sessions: 1000 read');
    expect(progress.at(-1)).toBe('listing sessions: 10000 read, done');
    const json = await runCli(cli, [
      'sessions',
      'list',
      '--user',
      'ops',
      '--limit',
      '2500',
      '--json',
      '--db',
      big,
    ]);
    expect((JSON.parse(json.stdout) as unknown[]).length).toBe(2500);
  }, 240_000);
});
