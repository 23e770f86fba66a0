import { AsyncLocalStorage } from 'node:async_hooks';
import { NoActiveRunError } from '../errors/run-errors.js';
import { RunContext, type RunContextInit } from './run-context.js';

const storage = new AsyncLocalStorage<RunContext>();

/**
 * The live RunContext of the current run. Throws `NoActiveRunError` outside a run: a tool
 * silently running as the anonymous user is how tenants leak.
 */
export function getRunContext(): RunContext {
  const ctx = storage.getStore();
  if (!ctx) throw new NoActiveRunError();
  return ctx;
}

/** The current RunContext, or `undefined` outside a run. */
export function findRunContext(): RunContext | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` with `ctx` as the RunContext (for background workers or calling a tool directly
 * in a test). Nested calls restore the outer context when they return.
 */
export function withRunContext<T>(ctx: RunContext | RunContextInit, fn: () => T): T {
  const context = ctx instanceof RunContext ? ctx : new RunContext(ctx);
  return storage.run(context, fn);
}
