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
