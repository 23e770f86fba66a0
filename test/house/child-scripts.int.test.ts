import { readdirSync, readFileSync } from 'node:fs';
import { utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore, StoreLockedError } from '../../src/index.js';
import { bundledScript } from '../helpers/bundled-script.js';
import { kill, repoRoot, runScript, spawnScript, waitForLine } from '../helpers/child-process.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * The test's own child scripts (crash workers, second processes on a store, servers) start as
 * one bundled module under plain `node` (test/helpers/bundled-script.ts), not through the tsx
 * loader, which compiles and loads each module of `src/` one by one in every process: the crash
 * tests alone start over a hundred. Only the examples and the bench run through tsx, as their
 * docs tell users to run them.
 */
const THROUGH_TSX: Record<string, string> = {
  'test/helpers/child-process.ts': '`runTsx`, for the examples',
  'test/helpers/run-example.ts': 'the examples, as their docs run them',
  'test/examples/examples-mcp.int.test.ts': 'examples/mcp.ts, as its docs run it',
  'test/examples/examples-sessions.int.test.ts': 'examples/sessions.ts, which starts itself again',
  'test/bench/bench-smoke.int.test.ts': '`npm run bench`, whose children are built JavaScript',
};

/** The files under test/ that start a process through tsx (`--import tsx` or `runTsx`). */
function filesStartingTsx(): string[] {
  const test = join(repoRoot, 'test');
  return readdirSync(test, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(test, file))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return /'--import',\s*'tsx'/.test(text) || /\brunTsx\(/.test(text);
    })
    .map((file) => relative(repoRoot, file))
    .filter((file) => file !== 'test/house/child-scripts.int.test.ts')
    .sort();
}

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe("the tests' child scripts", () => {
  it('start bundled, with plain node, and run the same source (a second process holds a store)', async () => {
    const path = join(await temps.folder(), 'db');
    const holder = await spawnScript('test/helpers/hold-store.ts', [path]);
    try {
      expect(holder.spawnargs.slice(1).join(' ')).not.toMatch(/tsx|\.ts\b/);
      expect(holder.spawnargs[1]).toMatch(/\/scripts\/test\/helpers\/hold-store\.js$/);
      await waitForLine(holder, 'holding');
      await expect(LevelSessionStore.open({ path })).rejects.toBeInstanceOf(StoreLockedError);
    } finally {
      await kill(holder, 'SIGKILL');
    }
  });

  it('a script, or a file it imports, changed since it was bundled is bundled again', async () => {
    const folder = await temps.folder();
    const script = join(folder, 'say.ts');
    const said = join(folder, 'said.ts');
    await writeFile(script, "import { said } from './said.js';\nconsole.log(said);\n");
    await writeFile(said, "export const said: string = 'one';\n");
    expect((await runScript(script)).stdout).toBe('one\n');
    expect((await runScript(script)).stdout).toBe('one\n');
    await writeFile(said, "export const said: string = 'two';\n");
    const later = new Date(Date.now() + 60_000); // a new mtime, however coarse the file system's
    await utimes(said, later, later);
    expect((await runScript(script)).stdout).toBe('two\n');
  });

  it('several children of one script started at once each run a whole bundle', async () => {
    const folder = await temps.folder();
    const script = join(folder, 'hello.ts');
    await writeFile(script, "console.log('hello');\n");
    // One file starting its workers together (the PostgreSQL soak starts four): the calls
    // bundle the same new script side by side, in the same millisecond.
    const bundles = await Promise.all(Array.from({ length: 8 }, () => bundledScript(script)));
    expect(new Set(bundles).size).toBe(1);
    expect((await runScript(script)).stdout).toBe('hello\n');
  });

  it('only the examples and the bench start through tsx', () => {
    expect(filesStartingTsx()).toEqual(Object.keys(THROUGH_TSX).sort());
  });
});
