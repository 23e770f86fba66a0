import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

export default defineConfig({
  // `agentstate-runtime` and its subpaths, as a package outside this repo imports them (the third-party
  // store's test), are the entry files (tsconfig.json maps them the same way for types).
  resolve: {
    alias: [
      { find: /^agentstate-runtime$/, replacement: src('index.ts') },
      { find: /^agentstate-runtime\/([a-z-]+)$/, replacement: src('$1.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on the 2-core machines. Most
    // files wait on child processes, LevelDB, PostgreSQL or sockets, so three side by side
    // keep both cores busy (see test/DURATIONS.md).
    maxWorkers: 3,
  },
});
