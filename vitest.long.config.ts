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
      'test/recovery/crash.test.ts',
      'test/persistence/postgres/postgres-soak.test.ts',
      'test/persistence/kv/store-fuzz.test.ts',
      'test/sessions/while-busy-rounds.test.ts',
    ],
    env: { AGENTSTATE_TEST_TIER: 'long' },
  },
});
