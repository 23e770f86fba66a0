/**
 * Child process of test/schedules/two-schedulers.int.test.ts: one process of an app that runs
 * the scheduler of agent `ticker` on a shared PostgreSQL store, its clock a fake one the parent
 * sets. Reads JSON commands from stdin, one per line, and prints JSON events.
 * Usage: pg-schedule-worker.ts <url> <schema> <start epoch ms> <claimMs> <leaseTtlMs>
 *
 * The agent's model answers `ok` to every call. Leases and claims run on the fake clock: a
 * process killed holds its leases and claims until the survivor's clock passes them.
 *
 * Commands:
 * - `time {at}`: sets the clock (the scheduler wakes for what is due); answers `time`.
 * - `hold {after}`: the model answers `after` more calls, then every later call waits for
 *   ever; each waiting call is told as `held {count}` (how many wait).
 * - `recover {userId}`: resumes the runs whose process died (leases expired by the clock),
 *   until none is left; answers `recovered {count, errors}`.
 * - `stop`: stops the scheduler, closes the store and exits.
 * Events: ready | time | held | recovered | scheduler-error {message} | failed.
 */
import { createInterface } from 'node:readline';
import { Agent } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { FakeClock } from '../../src/testing/fake-clock.js';

const [url, schema, start, claimMs, ttl] = process.argv.slice(2);
if (!url || !schema || !start || !claimMs || !ttl) {
  console.error('usage: pg-schedule-worker.ts <url> <schema> <start> <claimMs> <leaseTtlMs>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

const clock = new FakeClock(Number(start));
const store = await PostgresSessionStore.open({
  connectionString: url,
  schema,
  clock,
  poolSize: 8,
});
/** Calls the model answers before it holds (`Infinity`: it never holds). */
let answersLeft = Number.POSITIVE_INFINITY;
let held = 0;
const model = new ScriptedModel(async () => {
  if (answersLeft <= 0) {
    held += 1;
    emit({ event: 'held', count: held });
    await new Promise(() => undefined);
  }
  answersLeft -= 1;
  return { text: 'ok' };
});
const agent = new Agent({
  name: 'ticker',
  model,
  store,
  clock,
  lease: { ttlMs: Number(ttl) },
});
const scheduler = agent.startScheduler({
  schedules: { claimMs: Number(claimMs) },
  onError: (error) => emit({ event: 'scheduler-error', message: message(error) }),
});

type Command = { cmd: string; at?: number; after?: number; userId?: string };

async function handle(command: Command): Promise<void> {
  switch (command.cmd) {
    case 'time':
      clock.set(command.at!);
      emit({ event: 'time', at: command.at });
      return;
    case 'hold':
      answersLeft = command.after ?? 0;
      return;
    case 'recover': {
      const runtime = agent.runtimeFor(store);
      let count = 0;
      const errors: string[] = [];
      for (;;) {
        const recovered = await runtime.recover({ olderThan: 0, userId: command.userId });
        count += recovered.filter((r) => r.error === undefined).length;
        for (const r of recovered) if (r.error !== undefined) errors.push(message(r.error));
        // None left, or only those that fail (told once, not tried for ever).
        if (recovered.every((r) => r.error !== undefined)) break;
      }
      emit({ event: 'recovered', count, errors });
      return;
    }
    case 'stop':
      await scheduler.stop();
      await store.close();
      process.exit(0);
  }
}

let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as Command;
  queue = queue.then(() =>
    handle(command).catch((error: unknown) =>
      emit({ event: 'failed', cmd: command.cmd, message: message(error) }),
    ),
  );
});
emit({ event: 'ready' });
