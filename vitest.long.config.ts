import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:long`: the tests whose length is their point, at full strength (see
 * test/helpers/test-tier.ts). `npm test` runs the same files at a smaller size.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/crash.test.ts',
      'test/postgres-soak.test.ts',
      'test/store-fuzz.test.ts',
      'test/while-busy-rounds.test.ts',
    ],
    env: { AGENTSTATE_TEST_TIER: 'long' },
  },
});
