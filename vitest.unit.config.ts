import { defineConfig } from 'vitest/config';
import { shared, UNIT_TIER } from './vitest.config.js';

/**
 * `npm run test:unit`: the files that run in process, for the inner loop. No global setup: no
 * package build, no PostgreSQL, no Chromium, no child process (test/house/test-tiers.test.ts
 * keeps it so).
 */
export default defineConfig({ ...shared, test: { ...shared.test, ...UNIT_TIER } });
