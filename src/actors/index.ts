export * from './session-log.js';
export * from './agent-deps.js';
export * from './journaled-step.js';
export * from './step-progress.js';
export * from './step-timing.js';
