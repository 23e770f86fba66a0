import { checkStoreSupports, storeSupports } from '../persistence/store-supports.js';
import { equal } from './contract-assert.js';
import {
  claimedSupports,
  storeTest,
  type ContractTests,
  type StoreContractOptions,
} from './contract-harness.js';

/**
 * The store's `supports` manifest: it claims exactly the capabilities whose methods it has
 * (`checkStoreSupports`, as a runtime checks it when handed the store), and those are the ones
 * the suite was told to test (`StoreContractOptions.supports`).
 */
export function manifestContract(tests: ContractTests, options: StoreContractOptions): void {
  const { name, open } = options;
  tests.describe(`${name}: supports manifest`, () => {
    storeTest(tests, open, 'claims exactly the capabilities it has and is tested for', (h) => {
      checkStoreSupports(h.store, name);
      equal(storeSupports(h.store), claimedSupports(options));
      return Promise.resolve();
    });
  });
}
