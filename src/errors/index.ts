export * from './agentstate-error.js';
export * from './run-errors.js';
export * from './max-turns-exceeded-error.js';
export * from './session-errors.js';
export * from './error-from-serialized.js';
export * from './redact-deep.js';
