export * from './session-log.js';
export * from './step-deps.js';
export * from './run-actors.js';
