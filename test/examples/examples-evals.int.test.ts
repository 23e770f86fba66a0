import { afterEach, describe, expect, it } from 'vitest';
import { TempStores } from '../helpers/temp-store.js';
import { runExample } from '../helpers/run-example.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('examples/evals.ts', () => {
  it('stored runs become a dataset; the worse candidate regresses the small bills and the gate fails', async () => {
    const lines = (await runExample('evals.ts', await temps.folder())).map((o) =>
      o.line.replace(/-[0-9A-Z]{26}/g, ''),
    );
    expect(lines).toEqual([
      'Stored 6 runs of the bills agent.',
      'Dataset bills: 6 rows.',
      '  never exercised: bills: reject pay_bill',
      'Baseline: 6 of 6 rows pass.',
      'Candidate: 4 of 6 rows pass.',
      'Regressed rows: bill-1, bill-2.',
      'The gate fails: 2 rows regressed (at most 0): bill-1, bill-2',
    ]);
  });
});
