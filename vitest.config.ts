import { defineConfig } from 'vitest/config';

export default defineConfig({
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
