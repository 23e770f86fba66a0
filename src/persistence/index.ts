export * from './session-store.js';
export * from './kv-backend.js';
export * from './kv-session-store.js';
export * from './level-session-store.js';
export * from './memory-session-store.js';
export * from './session-record-codec.js';
export * from './migrations.js';
