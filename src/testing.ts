/** Test helpers: the offline scripted model, the in-memory store and a fake clock. */
export * from './models/scripted-model.js';
export * from './persistence/memory-session-store.js';
export * from './testing/fake-clock.js';
