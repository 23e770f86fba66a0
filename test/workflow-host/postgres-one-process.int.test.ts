import { afterEach, describe, expect, it } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { usePostgres } from '../helpers/postgres-tests.js';
import { workflows } from '../../src/workflows/workflows.js';

const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const counter = setup({
  types: { context: {} as { total: number }, events: {} as { type: 'ADD' } | { type: 'DONE' } },
  actors: { check: fromPromise<boolean, void>(async () => true) },
}).createMachine({
  id: 'counter',
  initial: 'checking',
  context: { total: 0 },
  states: {
    checking: { invoke: { src: 'check', onDone: 'counting' } },
    counting: {
      on: { ADD: { actions: assign({ total: ({ context }) => context.total + 1 }) }, DONE: 'done' },
      after: { 60_000: 'done' },
    },
    done: { type: 'final' },
  },
});

describe('a workflow on PostgreSQL, in one process', () => {
  it('starts, takes events right after, is cancelled, with the lease taken and given back each time', async () => {
    const { store, cleanup } = await pgt.freshStore('wf_one');
    cleanups.push(cleanup);
    const counts = workflows(counter, { store, steps: { check: { run: () => true } } });
    for (let i = 0; i < 5; i++) {
      const id = `c-${i}`;
      await counts.start(id, { userId: 'u' });
      for (let n = 0; n < 3; n++) await counts.send(id, { type: 'ADD' }, { userId: 'u' });
      const info = await counts.get(id, { userId: 'u' });
      expect(info).toMatchObject({ value: 'counting', context: { total: 3 } });
      const cancelled = await counts.cancel(id, { userId: 'u' });
      expect(cancelled).toMatchObject({ status: 'failed', timers: [] });
    }
    const listed = await counts.list({ userId: 'u' });
    expect(listed.workflows).toHaveLength(5);
    await counts.close();
  });
});
