import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { storeContract } from 'agentstate-runtime/store';
import { openMapStore } from '../helpers/map-store-harness.js';
import { specifiers } from '../helpers/layering-check.js';

/**
 * A store written outside agentstate (test/helpers/map-*.ts, from `agentstate-runtime` and
 * `agentstate-runtime/store` only) proves itself with the exported contract suite, the way a
 * Redis, SQLite or DynamoDB store would from its own tests.
 */
storeContract(
  { describe, it },
  {
    name: 'MapSessionStore (third party)',
    open: openMapStore,
    // What its manifest claims: no message inbox, no watches (their tests do not run).
    supports: { leases: true, leaseReads: true, deadlineIndex: true, decisionInbox: true },
  },
);

const ALLOWED =
  /^(agentstate-runtime|agentstate-runtime\/store|vitest|node:.+|\.\/map-[a-z-]+\.js|\.\.\/helpers\/(map-[a-z-]+|layering-check)\.js)$/;

describe('the third-party store', () => {
  it('imports agentstate-runtime through agentstate-runtime/store and the root only', () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const files = [
      fileURLToPath(import.meta.url),
      ...readdirSync(join(here, '..', 'helpers'))
        .filter((name) => name.startsWith('map-'))
        .map((name) => join(here, '..', 'helpers', name)),
    ];
    const outside = files.flatMap((file) =>
      specifiers(file)
        // the store's own files, and (in this file) the import scanner
        .filter((s) => !ALLOWED.test(s))
        .map((s) => `${file}: ${s}`),
    );
    expect(files.length).toBeGreaterThan(5);
    expect(outside).toEqual([]);
  });
});
