import type { SessionStore } from './session-store.js';

/** What an object must have to pass for a `SessionStore` at a call. */
export const SESSION_STORE_METHODS: readonly (keyof SessionStore)[] = [
  'create',
  'load',
  'loadForUpdate',
  'save',
  'readHistory',
  'readJournal',
  'readRunJournal',
  'list',
];

/** Whether `store` has every method of `names` (an optional part of the contract). */
export function hasMethods(store: SessionStore, names: readonly string[]): boolean {
  return names.every(
    (name) => typeof (store as unknown as Record<string, unknown>)[name] === 'function',
  );
}
