import type { MemoryInput, MemoryStore } from '../persistence/memory-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { hasMemory } from '../persistence/store-supports.js';

/** A memory for the contract's tests: a unit vector along `axis` of 4 dimensions. */
export function contractMemory(
  id: string,
  axis: number,
  extra: Partial<MemoryInput> = {},
): MemoryInput {
  const vector = [0, 0, 0, 0];
  vector[axis % 4] = 1;
  vector[(axis + 1) % 4] = 0.1;
  return { id, kind: 'fact', text: `text of ${id}`, at: 1, model: 'm', vector, ...extra };
}

/** The store under test as the memory store it claims to be. */
export function memoryOf(name: string, store: SessionStore): SessionStore & MemoryStore {
  if (!hasMemory(store)) throw new Error(`${name} keeps no memory`);
  return store;
}
