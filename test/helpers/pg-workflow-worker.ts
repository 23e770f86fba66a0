/**
 * Child process of test/workflow-host/two-writers.int.test.ts: one process of an app that hosts
 * the same workflow machine (a counter with one durable step) on a shared PostgreSQL store, with
 * its own `workflows()` host. Reads JSON commands from stdin, one per line, and prints JSON events.
 * Usage: pg-workflow-worker.ts <url> <schema> <owner> <clock> <leaseTtlMs>
 * where <clock> is `system`, or `fake:<start epoch ms>` (moved by nothing: leases expire by it, so
 * a worker whose clock starts later than another's by more than the ttl finds its leases expired).
 *
 * Commands: start {id} | burst {id, from, count} (sends `count` ADD events at once, event ids
 * `<from>-<i>`) | check {id} (sends CHECK, whose step waits for `release`; not awaited) |
 * release | add {id, eventId} | read {id} | exit.
 * Events: ready | started | burst-done {failed} | step-running | check-done | check-failed |
 * added | read {context, value, version, events: [{source, eventId?, type}], steps} | failed.
 */
import { createInterface } from 'node:readline';
import { assign, fromPromise, setup } from 'xstate';
import { workflows } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import type {
  WorkflowEventOutput,
  WorkflowStepOutput,
} from '../../src/machines/schemas/workflow-journal.js';
import { deferred } from './async.js';

const [url, schema, owner, clockArg = 'system', ttl = '30000'] = process.argv.slice(2);
if (!url || !schema || !owner) {
  console.error('usage: pg-workflow-worker.ts <url> <schema> <owner> <system|fake:<ms>> <ttl>');
  process.exit(2);
}
const clock: Clock = clockArg.startsWith('fake:')
  ? new FakeClock(Number(clockArg.slice('fake:'.length)))
  : systemClock;
const userId = 'u1';
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const failure = (error: unknown) => ({
  name: (error as Error).name,
  code: (error as { code?: unknown }).code,
  message: (error as Error).message,
  stack: process.env['DEBUG_STACK'] ? (error as Error).stack : undefined,
});

/**
 * Counts the ADD events it takes (in any state); CHECK runs the durable step `check`, whose
 * output (the process that ran it) or failure it keeps.
 */
const counter = setup({
  types: {
    context: {} as { total: number; checked: string | undefined },
    events: {} as { type: 'ADD' } | { type: 'CHECK' },
  },
  actors: { check: fromPromise<string>(async () => '') },
}).createMachine({
  id: 'counter',
  context: { total: 0, checked: undefined },
  initial: 'counting',
  on: { ADD: { actions: assign({ total: ({ context }) => context.total + 1 }) } },
  states: {
    counting: { on: { CHECK: 'checking' } },
    checking: {
      invoke: {
        src: 'check',
        onDone: { target: 'counting', actions: assign({ checked: ({ event }) => event.output }) },
        onError: { target: 'counting', actions: assign({ checked: 'interrupted' }) },
      },
    },
  },
});

let gate = deferred();
const store = await PostgresSessionStore.open({
  connectionString: url,
  schema,
  clock,
  poolSize: 4,
});
const counters = workflows(counter, {
  name: 'counter',
  store,
  clock,
  owner,
  leaseTtlMs: Number(ttl),
  pollIntervalMs: 20,
  steps: {
    check: {
      run: async () => {
        emit({ event: 'step-running' });
        await gate.promise;
        return owner;
      },
    },
  },
});

type Command = { cmd: string; id?: string; from?: string; count?: number; eventId?: string };

async function handle(command: Command): Promise<void> {
  const id = command.id ?? 'c1';
  switch (command.cmd) {
    case 'start':
      emit({ event: 'started', version: (await counters.start(id, { userId })).version });
      return;
    case 'burst': {
      const from = command.from ?? owner;
      const outcomes = await Promise.allSettled(
        Array.from({ length: command.count ?? 100 }, (_, i) =>
          counters.send(id, { type: 'ADD' }, { userId, eventId: `${from}-${i}` }),
        ),
      );
      const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [failure(o.reason)] : []));
      emit({ event: 'burst-done', failed });
      return;
    }
    case 'check':
      // Not awaited: it settles once the step ran (after `release`) and its outcome was saved.
      counters.send(id, { type: 'CHECK' }, { userId }).then(
        () => emit({ event: 'check-done' }),
        (error: unknown) => emit({ event: 'check-failed', ...failure(error) }),
      );
      return;
    case 'release':
      gate.resolve();
      gate = deferred();
      return;
    case 'add':
      await counters.send(id, { type: 'ADD' }, { userId, eventId: command.eventId });
      emit({ event: 'added' });
      return;
    case 'read': {
      const info = await counters.get(id, { userId });
      const journal = await counters.journal(id, { userId });
      emit({
        event: 'read',
        context: info.context,
        value: info.value,
        version: info.version,
        events: journal.flatMap((e) => {
          if (e.kind !== 'event') return [];
          const { source, eventId, type } = e.output as WorkflowEventOutput;
          return [{ source, eventId, type }];
        }),
        steps: journal.flatMap((e) => (e.kind === 'step' ? [e.output as WorkflowStepOutput] : [])),
      });
      return;
    }
    case 'exit':
      await counters.close();
      await store.close();
      process.exit(0);
  }
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as Command;
  queue = queue.then(() =>
    handle(command).catch((error: unknown) =>
      emit({ event: 'failed', cmd: command.cmd, ...failure(error) }),
    ),
  );
});
emit({ event: 'ready' });
