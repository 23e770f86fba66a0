import { cp, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from './child.js';
import { tempDir } from './fixtures.js';
import { buildPackage } from '../scripts/package-build.js';

/** Bench scripts compiled to JavaScript, with the package built as shipped. */
export interface BuiltScripts {
  /** The compiled `bench/<script>` (`.ts` named as in the repository). */
  path(script: string): string;
  cleanup(): Promise<void>;
}

/**
 * Compiles `bench/<script>` and the modules it imports (bench, `src/` and `scripts/` alike)
 * one file each to JavaScript in a temp folder, in the repository's layout (esbuild, with
 * tsconfig.json's settings; `npm run typecheck` checks the types), then replaces the package's
 * compiled `src/` there with the package built as `npm run build` ships it in `dist/`
 * (`scripts/package-build.ts`: each entry bundled), so a child runs with plain `node` what
 * users run, with no TypeScript loader in the measured process (tsx hooks every module load,
 * which in a cold process costs more than the package itself). What a bench script imports of
 * the package's entry points (`src/index.js`, `src/testing.js`, ...) is the bundle. The floors
 * and the bare-machine figures also import a few internal modules
 * (`src/machines/run-machine.js`, `src/persistence/level-backend.js`, ...): those resolve to
 * their own compilation, left next to the bundle, a separate copy that shares no state with
 * the bundle's. The folder links this repository's `node_modules`, so the dependencies resolve
 * as installed.
 */
export async function buildScripts(scripts: string[]): Promise<BuiltScripts> {
  const dir = await tempDir('agentstate-bench-build-');
  try {
    const out = join(dir.path, 'out');
    const shared = {
      absWorkingDir: REPO_ROOT,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      tsconfig: join(REPO_ROOT, 'tsconfig.json'),
      logLevel: 'warning',
    } as const;
    // The files the scripts import, found by a bundle that is not written...
    const graph = await build({
      ...shared,
      entryPoints: scripts.map((script) => join(REPO_ROOT, 'bench', script)),
      bundle: true,
      packages: 'external',
      write: false,
      metafile: true,
      outdir: out,
    });
    // ...then each compiled on its own, its imports kept as written.
    await build({
      ...shared,
      entryPoints: Object.keys(graph.metafile.inputs).map((file) => join(REPO_ROOT, file)),
      outdir: out,
      outbase: REPO_ROOT,
    });
    await writeFile(join(dir.path, 'package.json'), '{ "type": "module" }\n');
    await symlink(join(REPO_ROOT, 'node_modules'), join(dir.path, 'node_modules'), 'dir');
    const bundle = join(dir.path, 'dist');
    await buildPackage({ outDir: bundle, declarations: false });
    // The bundle's entry points replace their compilation; the internal modules stay for the floors.
    await cp(bundle, join(out, 'src'), { recursive: true, force: true });
    return {
      path: (script) => join(out, 'bench', script.replace(/\.ts$/, '.js')),
      cleanup: () => dir.cleanup(),
    };
  } catch (error) {
    await dir.cleanup();
    throw error;
  }
}
