import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm pack` (and `npm publish`) in a fresh clone, which has no `dist`: the package's
 * `prepack` script builds it first, so the tarball is never the sources' README and LICENSE
 * without the code.
 */
const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let clone: string | undefined;
afterAll(async () => {
  if (clone) await rm(clone, { recursive: true, force: true });
});

/** The repository's tracked files copied to a temp folder (a clone), node_modules linked. */
async function freshClone(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'agentstate-clone-'));
  const { stdout } = await exec('git', ['ls-files', '-z'], { cwd: ROOT, maxBuffer: 1 << 24 });
  for (const file of stdout.split('\0').filter((f) => f !== '')) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the working tree
    await mkdir(dirname(join(folder, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(folder, file));
  }
  await symlink(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
  return folder;
}

describe('a fresh clone', () => {
  it('packs with dist: prepack builds it', async () => {
    clone = await freshClone();
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const { stdout } = await exec('npm', ['pack', '--dry-run', '--json', '--offline'], {
      cwd: clone,
      maxBuffer: 1 << 24,
      env: { ...process.env, CI: '1' },
    });
    const json = stdout.slice(stdout.indexOf('[')); // after the build's own lines
    const [info] = JSON.parse(json) as [{ files: { path: string }[] }];
    const files = info.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli.js',
        'package.json',
        'README.md',
      ]),
    );
  }, 300_000);
});
