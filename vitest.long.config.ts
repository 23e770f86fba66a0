import { defineConfig } from 'vitest/config';
import { shared, tierProjects } from './vitest.config.js';

/**
 * `npm run test:long`: the tests whose length is their point, at full strength (see
 * test/helpers/test-tier.ts). `npm test` runs the same files at a smaller size.
 */
export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    projects: tierProjects([
      'test/recovery/crash.int.test.ts',
      'test/examples/order-workflow-crash.int.test.ts',
      'test/persistence/postgres/postgres-soak.int.test.ts',
      'test/persistence/kv/store-fuzz.test.ts',
      'test/sessions/while-busy-rounds.int.test.ts',
      'test/schedules/two-schedulers.int.test.ts',
      'test/writer-simulation/simulate-writers.test.ts',
      'test/crash-exploration/explore-crashes-processes.int.test.ts',
    ]),
    env: { AGENTSTATE_TEST_TIER: 'long' },
  },
});
