import { z } from 'zod';
import { tool } from '../../src/index.js';
import { deferred } from './async.js';

/**
 * The billing sub-agent's `lookup` of test/helpers/sub-agent-fixtures.ts, made to wait until
 * its signal aborts: a run with a tool in flight, for the cancel tests. `started` resolves at
 * the first call's start, `aborted` gets `signal.aborted` as each call ends; `on` hears both.
 */
export function blockingLookup(on: { start?(): void; end?(aborted: boolean): void } = {}) {
  const started = deferred();
  const aborted: boolean[] = [];
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an order up, slowly',
    parameters: z.object({ order: z.string() }),
    execute: async (_args, { signal }) => {
      started.resolve();
      on.start?.();
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      aborted.push(signal.aborted);
      on.end?.(signal.aborted);
      return 'stopped';
    },
  });
  return { lookup, started, aborted };
}
