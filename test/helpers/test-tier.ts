/**
 * The test tiers. `npm test` runs every test, those whose length is their point (the crash
 * seeds, the order workflow's crash seeds, the PostgreSQL soak, the store fuzz, the
 * `whileBusy` rounds, the two schedulers on PostgreSQL, the many-writers simulation, crash
 * exploration in child processes) at a smaller size with the same assertions;
 * `npm run test:long` (vitest.long.config.ts, which sets AGENTSTATE_TEST_TIER=long) runs those
 * at full strength. CI runs both.
 */
export const TEST_TIER: 'quick' | 'long' =
  process.env['AGENTSTATE_TEST_TIER'] === 'long' ? 'long' : 'quick';

/** `quick` under `npm test`, `long` under `npm run test:long`. */
export function bySize<T>(sizes: { quick: T; long: T }): T {
  return sizes[TEST_TIER];
}
