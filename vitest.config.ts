import { fileURLToPath } from 'node:url';
import {
  defineConfig,
  type TestProjectInlineConfiguration,
  type ViteUserConfig,
} from 'vitest/config';

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

/** What every tier shares. */
export const shared = {
  // `agentstate-runtime` and its subpaths, as a package outside this repo imports them (the third-party
  // store's test), are the entry files (tsconfig.json maps them the same way for types).
  resolve: {
    alias: [
      { find: /^agentstate-runtime$/, replacement: src('index.ts') },
      { find: /^agentstate-runtime\/([a-z-]+)$/, replacement: src('$1.ts') },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on the 2-core machines. Most
    // files wait on child processes, LevelDB, PostgreSQL or sockets, so three side by side
    // keep both cores busy (see test/DURATIONS.md).
    maxWorkers: 3,
  },
} satisfies ViteUserConfig;

/**
 * The tiers by file. An integration file (`*.int.test.ts`) needs what the global setup prepares
 * (the built package, PostgreSQL) or runs Chromium or child processes; it gets the global setup.
 * Every other file runs in process, and `npm run test:unit` (vitest.unit.config.ts) runs those
 * alone. test/house/test-tiers.test.ts checks each file's name against what it imports.
 *
 * The unit files of one worker share its module cache (`isolate: false`): the source is loaded
 * once a worker instead of once a file, which the house's rule of no module-level state makes
 * safe.
 */
export const UNIT_TIER = {
  include: ['test/**/*.test.ts'],
  exclude: ['test/**/*.int.test.ts'],
  isolate: false,
};
export const INTEGRATION_TIER = {
  include: ['test/**/*.int.test.ts'],
  globalSetup: ['test/global-setup.ts'],
};

/**
 * The unit files and the integration files as two projects: the global setup builds the package
 * and starts PostgreSQL only when an integration file is among the files run. `only` narrows
 * both to the files it lists.
 */
export function tierProjects(only?: readonly string[]): TestProjectInlineConfiguration[] {
  const integration = (file: string) => file.endsWith('.int.test.ts');
  const unit = only ? { ...UNIT_TIER, include: only.filter((f) => !integration(f)) } : UNIT_TIER;
  const other = only
    ? { ...INTEGRATION_TIER, include: only.filter(integration) }
    : INTEGRATION_TIER;
  return [
    { extends: true, test: { name: 'unit', ...unit } },
    { extends: true, test: { name: 'integration', ...other } },
  ];
}

/** `npm test`: the quick tier, every file. */
export default defineConfig({ ...shared, test: { ...shared.test, projects: tierProjects() } });
