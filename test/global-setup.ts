import { copyFile, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildPackage } from '../scripts/package-build.js';
import { startPostgres } from '../scripts/postgres-cluster.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder holding the package as built (`dist/`, JavaScript only), package.json and node_modules. */
    builtPackage: string;
    /** The run's PostgreSQL server (its `postgres` database); each file makes a database of its own. */
    postgresUrl: string;
  }
}

/**
 * Once per `vitest run`, before any file: builds the package's JavaScript (esbuild, about a
 * second) for the files that run the built CLI or package, and starts one PostgreSQL server
 * for the files that need one. Both are removed when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const built = await mkdtemp(join(tmpdir(), 'agentstate-built-'));
  const cluster = await startPostgres().catch(async (error: unknown) => {
    await rm(built, { recursive: true, force: true });
    throw error;
  });
  try {
    await copyFile(join(ROOT, 'package.json'), join(built, 'package.json'));
    await symlink(join(ROOT, 'node_modules'), join(built, 'node_modules'), 'dir');
    await buildPackage({ outDir: join(built, 'dist'), declarations: false });
  } catch (error) {
    await cluster.destroy();
    await rm(built, { recursive: true, force: true });
    throw error;
  }
  project.provide('builtPackage', built);
  project.provide('postgresUrl', cluster.url);
  return async () => {
    await cluster.destroy();
    await rm(built, { recursive: true, force: true });
  };
}
