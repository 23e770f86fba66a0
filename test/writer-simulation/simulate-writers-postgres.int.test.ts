import { describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../src/persistence/postgres/postgres-session-store.js';
import { simulateWriters } from '../../src/writer-simulation/simulate-writers.js';
import type { SimulatedWorker } from '../../src/writer-simulation/writers-options.js';
import type { WritersReport } from '../../src/writer-simulation/writers-report.js';
import { findingsOf } from '../helpers/writers-findings.js';
import { usePostgres } from '../helpers/postgres-tests.js';

/**
 * Issue 45, "many writers, simulated", on PostgreSQL: one store handle (its own pool) per
 * worker, its lease clock the worker's skewed one; leases and fencing live in the database.
 */
const pgt = usePostgres();
const SEEDS = 20;

/** Runs `seed` with one handle per worker on `schema`, and closes them. */
async function simulate(seed: number, schema: string, unsafeSkipFencing = false) {
  const stores: PostgresSessionStore[] = [];
  const open = async ({ clock }: SimulatedWorker) => {
    const store = await PostgresSessionStore.open({
      connectionString: pgt.url,
      schema,
      clock,
      poolSize: 4,
      unsafeSkipFencing,
    });
    stores.push(store);
    return store;
  };
  try {
    return await simulateWriters({ seed, open });
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}

describe('simulateWriters on PostgreSQL', () => {
  it(`${SEEDS} seeds: no forked history, stale write, lost or doubled message, lost approval, call never answered`, async () => {
    const schema = pgt.schema('writers');
    const found: WritersReport[] = [];
    let saves = 0;
    for (let seed = 0; seed < SEEDS; seed++) {
      const report = await simulate(seed, schema);
      saves += report.saves;
      if (findingsOf(report) > 0) found.push(report);
    }
    expect(found).toEqual([]);
    expect(saves).toBeGreaterThan(SEEDS * 20);
  }, 300_000);

  it('with the fencing check skipped (a test-only store option), stale writes are found', async () => {
    const schema = pgt.schema('unfenced');
    const stale: number[] = [];
    for (let seed = 0; seed < SEEDS && stale.length < 2; seed++) {
      const report = await simulate(seed, schema, true);
      if (report.staleWrites.length > 0) stale.push(seed);
    }
    expect(stale.length).toBeGreaterThan(0);
  }, 300_000);

  it('the option is checked like the others', () => {
    expect(
      () =>
        new PostgresSessionStore({
          connectionString: pgt.url,
          unsafeSkipFencing: 'yes' as unknown as boolean,
        }),
    ).toThrow(/option "unsafeSkipFencing" must be a boolean, got "yes"/);
  });
});
