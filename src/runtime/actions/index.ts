export * from './run-options.js';
export * from './send-message.js';
export * from './continue-run.js';
export * from './lifecycle-actions.js';
export * from './config-actions.js';
export * from './fork-session.js';
export * from './delete-session.js';
