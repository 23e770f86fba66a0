import { describe, it } from 'node:test';
import { storeContract } from 'agentstate-runtime/store';
import { openMapStore } from './map-store-harness.js';

/**
 * The third-party store's contract run under `node:test`, with no vitest anywhere: what
 * test/package/packaging.int.test.ts runs in a consumer project against the packed package. It names its
 * parts with the flags of before `supports` manifests, which the suite still reads.
 */
storeContract(
  { describe, it },
  { name: 'MapSessionStore (node:test)', open: openMapStore, decisionInbox: true },
);
