import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import type { SessionStore } from '../../src/persistence/session-store.js';
import {
  STORE_CONTRACT,
  storeContract,
  type ContractTests,
  type StoreContractOptions,
  type StoreSupports,
} from '../../src/store.js';
import { KV_SUPPORTS, kvHarness } from '../helpers/kv-harness.js';

/** The suite's tests as defined through a runner that only collects them. */
function collect(options: StoreContractOptions): { title: string; run: () => Promise<void> }[] {
  const tests: { title: string; run: () => Promise<void> }[] = [];
  const path: string[] = [];
  const runner: ContractTests = {
    describe: (name, body) => {
      path.push(name);
      body();
      path.pop();
    },
    it: (name, run) => tests.push({ title: [...path, name].join(' > '), run }),
  };
  storeContract(runner, options);
  return tests;
}

/** Runs every test the suite defines; the titles of those that failed, with why. */
async function failures(options: StoreContractOptions): Promise<string[]> {
  const failed: string[] = [];
  for (const test of collect(options)) {
    await test.run().catch((e: unknown) => failed.push(`${test.title}: ${String(e)}`));
  }
  return failed;
}

/** A store over a memory store with the required methods only, and what it claims. */
function requiredOnly(inner: MemorySessionStore, supports: StoreSupports): SessionStore {
  const store: Record<string, unknown> = { supports };
  const methods = inner as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of STORE_CONTRACT.required) store[name] = methods[name]!.bind(inner);
  return store as unknown as SessionStore;
}

const memory = (wrap: (inner: MemorySessionStore) => SessionStore = (s) => s) => {
  return async (clock: Parameters<StoreContractOptions['open']>[0]) => {
    const inner = new MemorySessionStore({ clock });
    return kvHarness(inner, () => inner.close(), wrap(inner));
  };
};

describe('the store contract suite runs the required tests and those of each claimed capability', () => {
  it('passes a store with no optional capability, running none of their tests', async () => {
    const options = {
      name: 'Required only',
      open: memory((inner) => requiredOnly(inner, {})),
      supports: {},
    };
    const titles = collect(options).map((t) => t.title);
    expect(titles.some((t) => t.includes('store contract'))).toBe(true);
    expect(titles.some((t) => t.includes('audit log'))).toBe(true);
    for (const part of ['leases', 'lease reads', 'approval-deadline index', 'message inbox']) {
      expect(titles.filter((t) => t.startsWith(`Required only: ${part} >`))).toEqual([]);
    }
    expect(await failures(options)).toEqual([]);
  });

  it('runs exactly the parts claimed: one more part, one more set of tests', () => {
    const open = memory();
    const all = collect({ name: 'KV', open, supports: KV_SUPPORTS }).map((t) => t.title);
    const fewer = collect({
      name: 'KV',
      open,
      supports: { ...KV_SUPPORTS, sessionWatches: false },
    }).map((t) => t.title);
    const watchTests = all.filter((t) => t.startsWith('KV: session watches >'));
    expect(watchTests.length).toBeGreaterThan(0);
    expect(all.filter((t) => !fewer.includes(t))).toEqual(watchTests);
  });

  it('fails a store that claims a capability and breaks it', async () => {
    // Leases read back as never held: `leaseReads` is claimed (it has `leaseOf`) and broken.
    const broken = (inner: MemorySessionStore) =>
      Object.assign(Object.create(inner) as MemorySessionStore, {
        leaseOf: () => Promise.resolve(undefined),
      });
    const failed = await failures({ name: 'Broken', open: memory(broken), supports: KV_SUPPORTS });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/^Broken: lease reads > reads a session’s lease as it holds it/);
  });

  it('fails a store whose manifest is not what the suite was told, or not what it has', async () => {
    const told = await failures({
      name: 'Told wrong',
      open: memory((inner) => requiredOnly(inner, {})),
      supports: { sessionWatches: true },
    });
    expect(told.some((t) => t.startsWith('Told wrong: supports manifest >'))).toBe(true);
    // Claims leases it does not have: the manifest test names the missing methods.
    const claims = await failures({
      name: 'Claims',
      open: memory((inner) => requiredOnly(inner, { leases: true })),
      supports: {},
    });
    expect(claims).toEqual([
      expect.stringMatching(
        /^Claims: supports manifest > .*TypeError: Claims: .*claims 'leases' but the store lacks acquireLease, renewLease, releaseLease, expiredLeases/,
      ),
    ]);
  });

  it('keeps reading the flags of before manifests: leases and the deadline index, plus those named', () => {
    const open = memory();
    const legacy = collect({ name: 'L', open, messageInbox: true, sessionWatches: true });
    // Memory and schedules came after manifests: no flag of before names them.
    const claimed = collect({
      name: 'L',
      open,
      supports: { ...KV_SUPPORTS, memory: false, schedules: false },
    });
    expect(legacy.map((t) => t.title)).toEqual(claimed.map((t) => t.title));
  });
});
