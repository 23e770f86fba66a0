import { describe, expect, it } from 'vitest';
import { Agent, SessionRuntime } from '../../src/index.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import {
  STORE_CAPABILITIES,
  STORE_CONTRACT,
  checkStoreSupports,
  hasLeases,
  storeSupports,
  supportsCapability,
  type StoreSupports,
} from '../../src/store.js';

/** A store over a memory store with its required methods, `extra` ones, and a manifest. */
function storeWith(
  supports: StoreSupports | undefined,
  extra: readonly (keyof SessionStore)[] = [],
): SessionStore {
  const inner = new MemorySessionStore();
  const methods = inner as unknown as Record<string, (...args: unknown[]) => unknown>;
  const store: Record<string, unknown> = supports === undefined ? {} : { supports };
  for (const name of [...STORE_CONTRACT.required, ...extra]) {
    store[name] = methods[name]!.bind(inner);
  }
  return store as unknown as SessionStore;
}

const LEASES = STORE_CONTRACT.capabilities.leases.methods;
const model = new ScriptedModel([]);

describe('a store’s supports manifest', () => {
  it('is what the runtime reads: a capability not claimed is not there', () => {
    const leased = storeWith({ leases: true }, LEASES);
    expect(hasLeases(leased)).toBe(true);
    expect(supportsCapability(leased, 'leaseReads')).toBe(false);
    expect(storeSupports(leased)).toEqual({
      leases: true,
      leaseReads: false,
      deadlineIndex: false,
      decisionInbox: false,
      messageInbox: false,
      queuedSessions: false,
      sessionWatches: false,
      memory: false,
      schedules: false,
    });
    // Every shipped store's manifest is checked, and claims exactly what it has.
    const memory = new MemorySessionStore();
    checkStoreSupports(memory);
    expect(STORE_CAPABILITIES.filter((c) => !storeSupports(memory)[c])).toEqual(['decisionInbox']);
  });

  it('is read from the methods of a store written before manifests', () => {
    const old = storeWith(undefined, [...LEASES, 'leaseOf']);
    expect(() => checkStoreSupports(old)).not.toThrow();
    expect(storeSupports(old)).toMatchObject({
      leases: true,
      leaseReads: true,
      messageInbox: false,
    });
    expect(() => new Agent({ name: 'a', model, store: old })).not.toThrow();
  });

  it('claiming a capability without its methods is a TypeError where the store is handed over', () => {
    const claims = storeWith({ sessionWatches: true });
    expect(() => new Agent({ name: 'a', model, store: claims })).toThrow(
      new TypeError(
        `new Agent(): option "store": Object's supports manifest claims 'sessionWatches' but the store lacks watchSession`,
      ),
    );
    const agent = new Agent({ name: 'a', model });
    expect(() => new SessionRuntime({ store: claims, agent })).toThrow(
      /^new SessionRuntime\(\): option "store": .*claims 'sessionWatches' but the store lacks watchSession$/,
    );
    expect(() => agent.run('hi', { sessionId: 's', store: claims })).toThrow(
      /^agent\.run\(\): option "store": .*claims 'sessionWatches'/,
    );
    // A part that needs another: leaseOf without leases.
    expect(() => checkStoreSupports(storeWith({ leaseReads: true }, ['leaseOf']))).toThrow(
      /claims 'leaseReads', which needs 'leases' claimed too/,
    );
  });

  it('having a capability’s methods without claiming it is a TypeError too', () => {
    const quiet = storeWith({}, LEASES);
    expect(
      () => new SessionRuntime({ store: quiet, agent: new Agent({ name: 'a', model }) }),
    ).toThrow(
      /option "store": .*does not claim 'leases' but the store has acquireLease, renewLease, releaseLease, expiredLeases/,
    );
  });

  it('names only known capabilities, in an object', () => {
    expect(() => checkStoreSupports(storeWith({ leasing: true } as StoreSupports))).toThrow(
      /names unknown capabilities: leasing \(known: leases, leaseReads, deadlineIndex/,
    );
    expect(() => checkStoreSupports(storeWith(true as unknown as StoreSupports))).toThrow(
      /must be an object of capabilities/,
    );
  });
});
