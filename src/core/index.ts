export { RunContext, type RunContextInit, type RunContextOverrides } from './run-context.js';
export { getRunContext, findRunContext, withRunContext } from './run-context-storage.js';
