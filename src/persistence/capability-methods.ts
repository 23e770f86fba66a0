import { STORE_CONTRACT, type CapabilityMethods, type StoreCapability } from './store-supports.js';

/**
 * Puts the methods of `capability` (as `STORE_CONTRACT` names them) on `store`, each bound to
 * `implementation`: a store whose capability is kept by a class of its own (memory, schedules)
 * has its methods from the contract's list, not from a hand-written copy of it. The store
 * declares the properties for TypeScript (`declare readonly createSchedule: ...`).
 */
export function bindCapability<C extends StoreCapability>(
  store: object,
  capability: C,
  implementation: CapabilityMethods<C>,
): void {
  for (const name of STORE_CONTRACT.capabilities[capability].methods) {
    const method = implementation[name as keyof CapabilityMethods<C>] as unknown;
    if (typeof method !== 'function') {
      throw new TypeError(`bindCapability: the ${capability} implementation lacks ${name}`);
    }
    Object.defineProperty(store, name, {
      value: (method as (...args: unknown[]) => unknown).bind(implementation),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
}
