import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent, LevelSessionStore, openMemory } from '../../src/index.js';
import { FakeClock, ScriptedModel, scriptedEmbedder } from '../../src/testing.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { cp } from 'node:fs/promises';

/** Issue 43, operators: `agentstate memory list|show|search|forget`. */
const temps = new TempStores();
const copies = new TempStores();
afterEach(() => copies.cleanupAll());
afterAll(() => temps.cleanupAll());

const T0 = Date.UTC(2026, 10, 20, 9, 30);

/** The app's module of `--module`: it exports the embedder the memories were made with. */
let moduleFile: string;
let agentModuleFile: string;
/** A folder with alice's and bob's memory, written once by a real agent and `openMemory`. */
let template: string;

beforeAll(async () => {
  const folder = await temps.folder();
  moduleFile = join(folder, 'embedder.mjs');
  const testing = JSON.stringify(join(process.cwd(), 'src/testing.ts'));
  await writeFile(
    moduleFile,
    `import { scriptedEmbedder } from ${testing};\nexport const embedder = scriptedEmbedder();\n`,
  );
  agentModuleFile = join(folder, 'agent.mjs');
  await writeFile(
    agentModuleFile,
    `import { scriptedEmbedder } from ${testing};\n` +
      `export const agent = { options: { name: 'assistant', memory: { embedder: scriptedEmbedder() } } };\n`,
  );
  template = join(folder, 'db');
  const store = await LevelSessionStore.open({ path: template });
  try {
    const embedder = scriptedEmbedder();
    const clock = new FakeClock(T0);
    const model = new ScriptedModel(() => ({ text: 'noted' }));
    const agent = new Agent({ name: 'assistant', model, store, clock, memory: { embedder } });
    await agent.run('I am allergic to peanuts', { sessionId: 's1', userId: 'alice' });
    clock.advance(60_000);
    await agent.run('My cat is called Miso', { sessionId: 'b1', userId: 'bob' });
    const memory = openMemory(store, { embedder, clock });
    clock.advance(60_000);
    await memory.remember({ userId: 'alice', text: 'Prefers window seats', id: 'fact:seat' });
    clock.advance(60_000);
    await memory.remember({
      userId: 'alice',
      resource: 'p7',
      text: 'The p7 launch deadline is Friday',
      id: 'fact:deadline',
    });
    await memory.updateWorkingMemory({ userId: 'alice' }, { append: 'Name: Alice' });
    await memory.remember({ userId: 'bob', text: 'Bob is allergic to cats', id: 'fact:bob' });
  } finally {
    await store.close();
  }
}, 60_000);

/** A copy of the fixture's folder for one test. */
async function folder(): Promise<string> {
  const path = join(await copies.folder(), 'db');
  await cp(template, path, { recursive: true });
  return path;
}

const cli = (db: string, user: string, ...args: string[]) =>
  cliInProcess([...args, '--db', db, '--user', user]);

async function everything(db: string): Promise<[string, string][]> {
  const store = await LevelSessionStore.open({ path: db });
  try {
    return await dumpBackend(store);
  } finally {
    await store.close();
  }
}

const parsed = <T = Record<string, unknown>>(text: string): T => JSON.parse(text) as T;

/** The cells of a table's lines (two spaces or more apart). */
const cells = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

describe('agentstate memory', () => {
  it('has help: the commands are listed, each with an example', async () => {
    const help = await cliInProcess(['--help']);
    for (const name of ['list', 'show', 'search', 'forget']) {
      expect(help.stdout).toContain(`  memory ${name} `);
      const own = await cliInProcess(['memory', name, '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`Examples:\\n {2}agentstate memory ${name} `));
    }
    const which = await cliInProcess(['memory']);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain('memory: which one? list, show, search or forget');
  });

  it("lists a user's memories only, newest first, by resource and kind, in pages, as a table or JSON", async () => {
    const db = await folder();
    const listed = await cli(db, 'alice', 'memory', 'list');
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const rows = cells(listed.stdout);
    expect(rows[0]).toEqual(['ID', 'RESOURCE', 'KIND', 'SESSION', 'AT', 'TEXT']);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['fact:deadline', 'fact:seat', 'msg:s1:0']);
    expect(rows[3]).toEqual([
      'msg:s1:0',
      '-',
      'message (user)',
      's1',
      expect.stringMatching(/^2026-11-\d\d \d\d:\d\d:00$/),
      'I am allergic to peanuts',
    ]);
    expect(listed.stdout).not.toContain('Miso');
    expect(listed.stdout).not.toContain('Bob');

    const p7 = parsed<{ memories: { id: string; resource?: string }[] }>(
      (await cli(db, 'alice', 'memory', 'list', '--resource', 'p7', '--json')).stdout,
    );
    expect(p7.memories).toEqual([
      expect.objectContaining({ id: 'fact:deadline', resource: 'p7', kind: 'fact' }),
    ]);
    const facts = await cli(db, 'alice', 'memory', 'list', '--kind', 'message', '--json');
    expect(parsed<{ memories: { id: string }[] }>(facts.stdout).memories.map((m) => m.id)).toEqual([
      'msg:s1:0',
    ]);

    const first = await cli(db, 'alice', 'memory', 'list', '--limit', '2');
    const more = /^more: --cursor (\S+)$/m.exec(first.stdout);
    expect(
      cells(first.stdout)
        .slice(1, 3)
        .map((r) => r[0]),
    ).toEqual(['fact:deadline', 'fact:seat']);
    expect(more).not.toBeNull();
    const second = await cli(db, 'alice', 'memory', 'list', '--limit', '2', '--cursor', more![1]!);
    expect(
      cells(second.stdout)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(['msg:s1:0']);
    expect(second.stdout).not.toContain('more:');

    const nobody = await cli(db, 'carol', 'memory', 'list');
    expect(nobody).toMatchObject({ code: 0, stdout: 'no memories of user carol\n' });
  });

  it('shows the scopes of a user with their counts and working memory', async () => {
    const db = await folder();
    const shown = await cli(db, 'alice', 'memory', 'show');
    expect(shown.code).toBe(0);
    const rows = cells(shown.stdout);
    expect(rows[0]).toEqual(['RESOURCE', 'MEMORIES', 'WORKING MEMORY']);
    expect(rows[1]).toEqual([
      '(own scope)',
      '2',
      expect.stringMatching(/^version 1, 2026-11-\d\d \d\d:\d\d:00$/),
    ]);
    expect(rows[2]).toEqual(['p7', '1', '-']);
    expect(shown.stdout).toContain('\nName: Alice\n');
    const json = parsed<{ scopes: unknown[] }>(
      (await cli(db, 'alice', 'memory', 'show', '--json')).stdout,
    );
    expect(json.scopes).toEqual([
      {
        memories: 2,
        workingMemory: true,
        working: { content: 'Name: Alice', version: 1, updatedAt: T0 + 180_000 },
      },
      { resource: 'p7', memories: 1, workingMemory: false },
    ]);
    const p7 = cells((await cli(db, 'alice', 'memory', 'show', '--resource', 'p7')).stdout);
    expect(p7).toEqual([
      ['RESOURCE', 'MEMORIES', 'WORKING MEMORY'],
      ['p7', '1', '-'],
    ]);
    expect((await cli(db, 'bob', 'memory', 'show')).stdout).not.toContain('Alice');
  });

  it("searches a user's memory with the app's embedder, best first with scores, never another user's", async () => {
    const db = await folder();
    const found = await cli(
      db,
      'alice',
      'memory',
      'search',
      'allergic to peanuts?',
      '--module',
      moduleFile,
    );
    expect(found).toMatchObject({ code: 0, stderr: '' });
    const rows = cells(found.stdout);
    expect(rows[0]).toEqual(['SCORE', 'ID', 'RESOURCE', 'KIND', 'SESSION', 'AT', 'TEXT']);
    expect(rows[1]![1]).toBe('msg:s1:0');
    expect(Number(rows[1]![0])).toBeGreaterThan(0.5);
    expect(found.stdout).not.toContain('Bob is allergic');

    const json = parsed<{ model: string; matches: { score: number; memory: { id: string } }[] }>(
      (
        await cli(
          db,
          'alice',
          'memory',
          'search',
          'allergic',
          '--module',
          agentModuleFile,
          '--top',
          '1',
          '--json',
        )
      ).stdout,
    );
    expect(json.model).toBe('scripted');
    expect(json.matches.map((m) => m.memory.id)).toEqual(['msg:s1:0']);
    const narrow = await cli(
      db,
      'alice',
      'memory',
      'search',
      'allergic',
      '--module',
      moduleFile,
      '--resource',
      'p7',
      '--min-score',
      '0.5',
    );
    expect(narrow.stdout).toBe('no memories of user alice, resource p7 match (model scripted)\n');
    const bobs = await cli(
      db,
      'bob',
      'memory',
      'search',
      'allergic',
      '--module',
      moduleFile,
      '--json',
    );
    expect(
      parsed<{ matches: { memory: { id: string } }[] }>(bobs.stdout).matches[0]!.memory.id,
    ).toBe('fact:bob');
  });

  it('forgets a resource or a whole user (with their sessions) only with --yes, saying what it erased', async () => {
    const db = await folder();
    const before = await everything(db);
    const refused = await cli(db, 'alice', 'memory', 'forget');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'forget erases all the memory of user alice for good: add --yes',
    );
    expect(await everything(db)).toEqual(before);

    const p7 = await cli(db, 'alice', 'memory', 'forget', '--resource', 'p7', '--yes');
    expect(p7).toMatchObject({
      code: 0,
      stdout: 'erased 1 memory, 0 working memories of user alice, resource p7\n',
    });
    expect((await cli(db, 'alice', 'memory', 'list', '--json')).stdout).not.toContain('deadline');

    const all = await cli(db, 'alice', 'memory', 'forget', '--sessions', '--yes', '--json');
    expect(parsed(all.stdout)).toEqual({
      userId: 'alice',
      memories: 2,
      workingMemories: 1,
      sessions: 1,
    });
    expect((await cli(db, 'alice', 'memory', 'show')).stdout).toBe('no memory of user alice\n');
    expect((await cli(db, 'alice', 'sessions', 'show', 's1')).code).toBe(3);
    // bob keeps everything
    const bob = parsed<{ memories: unknown[] }>(
      (await cli(db, 'bob', 'memory', 'list', '--json')).stdout,
    );
    expect(bob.memories).toHaveLength(2);
  });

  it('refuses bad flags with a usage error (exit 2), nothing stored changed', async () => {
    const db = await folder();
    const before = await everything(db);
    const cases: [string[], string][] = [
      [['memory', 'list', '--kind', 'thought'], '--kind must be fact or message, got "thought"'],
      [['memory', 'list', '--limit', '0'], '--limit must be an integer of at least 1, got "0"'],
      [['memory', 'list', '--limit', '5000'], '--limit must be at most 1000, got 5000'],
      [['memory', 'list', '--cursor', 'junk'], 'the cursor is not one a page of this store gave'],
      [['memory', 'list', '--resource', ''], '--resource must not be empty'],
      [['memory', 'list', '--resource', 'x'.repeat(201)], 'memory resource: expected 1 to 200'],
      [
        ['memory', 'search', 'peanuts'],
        'search embeds the text with the embedder the memories were made with',
      ],
      [
        ['memory', 'search', 'peanuts', '--module', moduleFile, '--min-score', 'high'],
        '--min-score must be a number from -1 to 1',
      ],
      [['memory', 'search', '  ', '--module', moduleFile], 'the text to search must not be empty'],
      [['memory', 'search', '--module', moduleFile], 'missing <text>'],
      [
        ['memory', 'forget', '--resource', 'p7', '--sessions', '--yes'],
        '--sessions erases a whole user: leave --resource out',
      ],
      [['memory', 'forget', '--yes', '--force'], "Unknown option '--force'"],
    ];
    for (const [args, message] of cases) {
      const run = await cli(db, 'alice', ...args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain(`(see: agentstate ${args[0]} ${args[1]} --help)`);
    }
    const noModule = await cli(
      db,
      'alice',
      'memory',
      'search',
      'x',
      '--module',
      join(db, 'none.mjs'),
    );
    expect(noModule.code).toBe(1);
    expect(noModule.stderr).toContain('--module: no module');
    expect(await everything(db)).toEqual(before);
  });
});
