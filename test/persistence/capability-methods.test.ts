import { describe, expect, it } from 'vitest';
import { bindCapability } from '../../src/persistence/capability-methods.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import {
  STORE_CONTRACT,
  checkStoreSupports,
  type CapabilityMethods,
} from '../../src/persistence/store-supports.js';

describe('bindCapability', () => {
  it('puts the methods STORE_CONTRACT names on the store, each bound to the implementation', async () => {
    class Implementation {
      readonly calls: string[] = [];
      queueMessage(...args: unknown[]) {
        this.calls.push(`queue ${args.length}`);
        return Promise.resolve({ id: 'm1' });
      }
      queuedMessages() {
        this.calls.push('queued');
        return Promise.resolve([]);
      }
      dropQueuedMessage() {
        this.calls.push('drop');
        return Promise.resolve(true);
      }
      /** Not of the capability: left off the store. */
      helper() {
        return 'no';
      }
    }
    const implementation = new Implementation();
    const store = {} as Record<string, unknown>;
    bindCapability(
      store,
      'messageInbox',
      implementation as unknown as CapabilityMethods<'messageInbox'>,
    );
    expect(Object.keys(store).sort()).toEqual(
      [...STORE_CONTRACT.capabilities.messageInbox.methods].sort(),
    );
    const { queueMessage, queuedMessages } = store as Record<string, () => Promise<unknown>>;
    await queueMessage!();
    await queuedMessages!();
    expect(implementation.calls).toEqual(['queue 0', 'queued']);
  });

  it('refuses an implementation that lacks one of the methods, naming it', () => {
    const partial = { createSchedule: () => Promise.resolve(undefined) };
    expect(() =>
      bindCapability({}, 'schedules', partial as unknown as CapabilityMethods<'schedules'>),
    ).toThrow(/schedules implementation lacks getSchedule/);
  });

  it('gives the key-value store its memory, schedules and message inbox methods, as its manifest claims', () => {
    const store = new MemorySessionStore();
    checkStoreSupports(store);
    for (const capability of ['messageInbox', 'queuedSessions', 'memory', 'schedules'] as const) {
      for (const method of STORE_CONTRACT.capabilities[capability].methods) {
        expect(Object.hasOwn(store, method), method).toBe(true);
      }
    }
  });
});
