import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createHash, randomUUID } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
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
 * later uses, in this file or another, reuse it while none of the files it was made of changed
 * (a watch run sees an edit of `src/` as a tsx start did).
 *
 * Why: `node --import tsx` compiles and loads every module of `src/` one by one in each process,
 * about a second per start on the 2-core machines; the bundle starts in about a third of that,
 * and the crash tests start well over a hundred processes. The code run is the same source.
 *
 * `script`: absolute, or relative to the repository root (one outside the repository is
 * written under `outside/`, by a hash of its path).
 */
export async function bundledScript(script: string): Promise<string> {
  const source = isAbsolute(script) ? script : join(ROOT, script);
  const inRepo = relative(ROOT, source);
  const name = inRepo.startsWith('..')
    ? join(
        'outside',
        createHash('sha256').update(source).digest('hex').slice(0, 16),
        basename(source),
      )
    : inRepo;
  const built = inject('builtPackage') as string | undefined;
  if (!built) throw new Error(`${script}: child scripts need the run's test/global-setup.ts`);
  const out = join(built, 'scripts', name.replace(/\.ts$/, '.js'));
  const sources = `${out}.sources.json`;
  if (await unchanged(sources)) return out;
  await mkdir(dirname(out), { recursive: true });
  // Written beside, then renamed: a process never starts a half-written file, and two calls
  // bundling the same script at once (two files, or one file starting several children in the
  // same millisecond) each rename a whole one of their own.
  const partial = `${out}.${randomUUID()}.partial`;
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
    metafile: true,
  });
  if (result.errors.length > 0)
    throw new Error(`esbuild ${script}: ${result.errors.length} errors`);
  const stamps = Object.fromEntries(
    await Promise.all(
      Object.keys(result.metafile.inputs).map(async (file) => {
        const path = join(ROOT, file);
        return [path, (await stat(path)).mtimeMs] as const;
      }),
    ),
  );
  await rename(partial, out);
  await writeFile(`${partial}.sources`, JSON.stringify(stamps));
  await rename(`${partial}.sources`, sources);
  return out;
}

/** True when the bundle's list of sources exists and none of them changed since it was made. */
async function unchanged(sources: string): Promise<boolean> {
  const stamps = await readFile(sources, 'utf8').then(
    (text) => JSON.parse(text) as Record<string, number>,
    () => undefined,
  );
  if (!stamps) return false;
  const same = await Promise.all(
    Object.entries(stamps).map(([path, mtimeMs]) =>
      stat(path).then(
        (now) => now.mtimeMs === mtimeMs,
        () => false,
      ),
    ),
  );
  return same.every(Boolean);
}
