/**
 * Child process of test/persistence/postgres/postgres-processes.int.test.ts and test/persistence/postgres/postgres-attach.int.test.ts: one
 * "process" of an app sharing sessions on PostgreSQL. Reads JSON commands from stdin, one per
 * line, and prints JSON events.
 * Usage: node --import tsx test/helpers/pg-worker.ts <url> <schema> <owner> [clockOffsetMs]
 *
 * Commands: run {text} | resume | release (opens the model's gate) | gate (closes it) | step
 * (lets the model call waiting at the gate go, and closes it behind it) | recover | load (keeps
 * the record) | saveLate {text} (saves on the kept record) | delete | exit.
 * The model answers `<owner> says hi`, after waiting for `release` when GATED=1. With TOOLS=1 it
 * calls the `add` tool twice first (2 + 3, then the sum + 5) and answers `Done: <sum>`; each
 * call emits `model-called` with how many results it saw, then waits at the gate.
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { Agent, tool, type ModelRequest, type SessionRecord } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { systemClock } from '../../src/core/clock.js';
import { deferred } from './async.js';
import { commitOn, msg } from '../../src/store-contract/contract-fixtures.js';

const [url, schema, owner, offset = '0'] = process.argv.slice(2);
if (!url || !schema || !owner) {
  console.error('usage: pg-worker.ts <url> <schema> <owner> [clockOffsetMs]');
  process.exit(2);
}
const key = { sessionId: 'shared', userId: 'u1' };
const shift = Number(offset);
const clock = {
  now: () => systemClock.now() + shift,
  sleepUntil: (at: number, signal?: AbortSignal) => systemClock.sleepUntil(at - shift, signal),
};
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const failure = (error: unknown) => ({
  name: (error as Error).name,
  code: (error as { code?: unknown }).code,
  message: (error as Error).message,
});

let gate = deferred();
if (process.env['GATED'] !== '1') gate.resolve();
const tools = process.env['TOOLS'] === '1';
/** The two-calls-then-answer script of TOOLS=1, by the results the request holds. */
function addTwice(request: ModelRequest) {
  const results = request.items.flatMap((i) => (i.type === 'tool_result' ? [i.output] : []));
  const [a, b] = results.length === 0 ? [2, 3] : [Number(results.at(-1)), 5];
  if (results.length >= 2) return { text: `Done: ${results.at(-1)}` };
  const callId = `add_${results.length + 1}`;
  return { toolCalls: [{ name: 'add', arguments: { a, b }, callId }] };
}
const model = new ScriptedModel(async (request) => {
  const results = request.items.filter((i) => i.type === 'tool_result').length;
  emit({ event: 'model-called', ...(tools ? { results } : {}) });
  await gate.promise;
  return tools ? addTwice(request) : { text: `${owner} says hi` };
});
const add = tool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const store = await PostgresSessionStore.open({
  connectionString: url,
  schema,
  clock,
  poolSize: 4,
});
const agent = new Agent({
  name: 'worker',
  model,
  store,
  clock,
  lease: { owner, ttlMs: 30_000 },
  ...(tools ? { tools: [add] } : {}),
});
let kept: SessionRecord | undefined;

async function handle(command: { cmd: string; text?: string }): Promise<void> {
  switch (command.cmd) {
    case 'run':
    case 'resume': {
      const call =
        command.cmd === 'run'
          ? agent.run(command.text ?? 'hello', { ...key })
          : agent.resume(key.sessionId, { userId: key.userId });
      // Not awaited: further commands (release) arrive while the run waits in the model.
      call.then(
        (result) => emit({ event: 'run-done', output: result.output }),
        (error: unknown) => emit({ event: 'run-failed', ...failure(error) }),
      );
      return;
    }
    case 'release':
      gate.resolve();
      return;
    case 'gate':
      gate = deferred();
      return;
    case 'step': {
      const waiting = gate;
      gate = deferred();
      waiting.resolve();
      return;
    }
    case 'recover': {
      // Not awaited either: a recovered run's model may wait for `step`.
      const recovering = agent.runtimeFor(store).recover({ olderThan: 0, userId: key.userId });
      recovering.then(
        (results) =>
          emit({
            event: 'recovered',
            results: results.map((r) => ({
              sessionId: r.key.sessionId,
              output: r.result?.output,
              error: r.error === undefined ? undefined : failure(r.error),
            })),
          }),
        (error: unknown) => emit({ event: 'recover-failed', ...failure(error) }),
      );
      return;
    }
    case 'load':
      kept = await store.load(key);
      emit({ event: 'loaded', version: kept.version });
      return;
    case 'saveLate':
      try {
        const saved = await store.save(commitOn(kept!, [msg(command.text ?? 'late')]));
        emit({ event: 'saved', version: saved.version });
      } catch (error) {
        emit({ event: 'save-failed', ...failure(error) });
      }
      return;
    case 'delete':
      try {
        const current = await store.load(key);
        const saved = await store.save(commitOn(current, [], [], { status: 'deleted' }));
        emit({ event: 'deleted', version: saved.version });
      } catch (error) {
        emit({ event: 'delete-failed', ...failure(error) });
      }
      return;
    case 'exit':
      await store.close();
      process.exit(0);
  }
}

emit({ event: 'ready' });
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim()) await handle(JSON.parse(line) as { cmd: string; text?: string });
}
