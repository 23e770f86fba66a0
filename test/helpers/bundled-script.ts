import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A TypeScript script a test runs as a child process (a crash worker, a second process on a
 * store, an example), as one plain ES module for `node <file>`: the script and the modules of
 * `src/` it imports bundled by esbuild, every package left external, `agentstate-runtime` mapped
 * to `src/` as tsconfig.json does. Written once per `vitest run`, at the first use, under the
 * run's built package (test/global-setup.ts), whose `node_modules` link resolves the packages;
 * later uses, in this file or another, reuse it.
 *
 * Why: `node --import tsx` compiles and loads every module of `src/` one by one in each process,
 * about a second per start on the 2-core machines; the bundle starts in about a third of that,
 * and the crash tests start well over a hundred processes. The code run is the same source.
 *
 * `script`: absolute, or relative to the repository root.
 */
export async function bundledScript(script: string): Promise<string> {
  const source = isAbsolute(script) ? script : join(ROOT, script);
  const out = join(
    inject('builtPackage'),
    'scripts',
    relative(ROOT, source).replace(/\.ts$/, '.js'),
  );
  if (await exists(out)) return out;
  await mkdir(dirname(out), { recursive: true });
  // Written beside, then renamed: a process never starts a half-written file, and two files
  // bundling the same script at once each rename a whole one.
  const partial = `${out}.${process.pid}.${Date.now()}.partial`;
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [source],
    outfile: partial,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'silent',
  });
  if (result.errors.length > 0)
    throw new Error(`esbuild ${script}: ${result.errors.length} errors`);
  await rename(partial, out);
  return out;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
