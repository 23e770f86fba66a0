export * from './run-context.js';
export * from './run-context-storage.js';
