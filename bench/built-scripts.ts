import { execFile } from 'node:child_process';
import { cp, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './child.js';
import { tempDir } from './fixtures.js';
import { buildPackage } from '../scripts/package-build.js';

const exec = promisify(execFile);

/** Bench scripts compiled to JavaScript, with the package built as shipped. */
export interface BuiltScripts {
  /** The compiled `bench/<script>` (`.ts` named as in the repository). */
  path(script: string): string;
  cleanup(): Promise<void>;
}

/**
 * Compiles `bench/<script>` and the bench modules it imports with the package's own settings
 * (`tsconfig.build.json`) into a temp folder, then replaces the package's compiled `src/` there
 * with the package built as `npm run build` ships it in `dist/` (`scripts/package-build.ts`:
 * each entry bundled), so a child runs with plain `node` what users run, with no TypeScript
 * loader in the measured process (tsx hooks every module load, which in a cold process costs
 * more than the package itself). What a bench script imports of the package's entry points
 * (`src/index.js`, `src/testing.js`, ...) is the bundle. The floors and the bare-machine figures
 * also import a few internal modules (`src/machines/run-machine.js`,
 * `src/persistence/level-backend.js`, ...): those resolve to tsc's own compilation of them, left
 * next to the bundle, a separate copy that shares no state with the bundle's. The folder links
 * this repository's `node_modules`, so the dependencies resolve as installed.
 */
export async function buildScripts(scripts: string[]): Promise<BuiltScripts> {
  const dir = await tempDir('agentstate-bench-build-');
  try {
    const out = join(dir.path, 'out');
    const config = join(dir.path, 'tsconfig.json');
    await writeFile(
      config,
      JSON.stringify({
        extends: join(REPO_ROOT, 'tsconfig.build.json'),
        compilerOptions: {
          rootDir: REPO_ROOT,
          outDir: out,
          declaration: false,
          noEmitOnError: true,
        },
        files: scripts.map((script) => join(REPO_ROOT, 'bench', script)),
        include: [],
      }),
    );
    await writeFile(join(dir.path, 'package.json'), '{ "type": "module" }\n');
    await symlink(join(REPO_ROOT, 'node_modules'), join(dir.path, 'node_modules'), 'dir');
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await exec(process.execPath, [tsc, '-p', config], { cwd: REPO_ROOT });
    const bundle = join(dir.path, 'dist');
    await buildPackage({ outDir: bundle, declarations: false });
    // The bundle's entry points replace tsc's; tsc's internal modules stay for the floors.
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
