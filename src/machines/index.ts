export * from './run-types.js';
export * from './run-machine.js';
export * from './session-types.js';
export * from './session-machine.js';
