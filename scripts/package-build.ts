import { execFile } from 'node:child_process';
import { chmod, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface PackageJson {
  exports: Record<string, string | { import?: string }>;
  bin: Record<string, string>;
}

/**
 * The package's entry points as sources (`src/<name>.ts`), read from package.json: every
 * `exports` entry's `import` file and every `bin` file, all `./dist/<name>.js`.
 */
export async function entryPoints(): Promise<string[]> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const shipped = [
    ...Object.values(pkg.exports).map((e) => (typeof e === 'string' ? e : e.import)),
    ...Object.values(pkg.bin),
  ];
  const names = shipped.flatMap((file) => {
    const match = file && /^(?:\.\/)?dist\/(.+)\.js$/.exec(file);
    return match ? [match[1]!] : [];
  });
  return [...new Set(names)].map((name) => join(ROOT, 'src', `${name}.ts`));
}

/**
 * Scripts the package starts as child processes of its own (not exported): bundled like an
 * entry point, next to the entries, so that they share the entries' chunks (one copy of each
 * class with the user's imports of the package).
 */
export const CHILD_SCRIPTS: readonly { in: string; out: string }[] = [
  // `exploreCrashes({ processes })`: the first process of each crash point.
  { in: 'src/crash-exploration/crash-child.ts', out: 'crash-child' },
];

export interface BuildOptions {
  /** Where to write (emptied first). */
  outDir: string;
  /** Also write the type declarations (`tsc --emitDeclarationOnly`); default true. */
  declarations?: boolean;
}

/**
 * Builds the package as shipped: each entry point bundled with its own modules into one ES
 * module (shared code in chunks, `import()`s of the package's own modules kept lazy as chunks
 * of their own), every dependency left external (imported by name, so the user's xstate and
 * zod are the ones used and lazily imported SDKs stay lazy), plus the `.d.ts` files in the
 * same layout as `src/`. Node's ESM loader pays per module, so one file per entry imports in
 * a fraction of the time of the ~160 modules `tsc` would emit.
 */
export async function buildPackage({ outDir, declarations = true }: BuildOptions): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [
      ...(await entryPoints()).map((path) => ({
        in: path,
        out: relative(join(ROOT, 'src'), path).replace(/\.ts$/, ''),
      })),
      ...CHILD_SCRIPTS.map((script) => ({ in: join(ROOT, script.in), out: script.out })),
    ],
    outdir: outDir,
    outbase: join(ROOT, 'src'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  if (result.errors.length > 0 || result.warnings.length > 0) {
    throw new Error(
      `esbuild: ${result.errors.length} error(s), ${result.warnings.length} warning(s)`,
    );
  }
  await chmod(join(outDir, 'cli.js'), 0o755);
  if (declarations) await buildDeclarations(outDir);
}

/**
 * The `.d.ts` files alone (`tsc --emitDeclarationOnly`), in the same layout as `src/`.
 * `--stripInternal`: a declaration marked `@internal` does not ship.
 */
export async function buildDeclarations(outDir: string): Promise<void> {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const config = join(ROOT, 'tsconfig.build.json');
  await exec(
    process.execPath,
    [tsc, '-p', config, '--emitDeclarationOnly', '--stripInternal', '--outDir', outDir],
    {
      cwd: ROOT,
    },
  );
}
