/**
 * Child process of test/sessions/while-busy-rounds.int.test.ts: one process of an app on PostgreSQL whose
 * agent answers `answer to <message>` in a session of the test's choosing. A message `hold`
 * waits in its model call, `hold-tool` in a tool call, until the `release` command for its
 * session (a cancel stops either). Every model call is printed, so the test counts each
 * message's calls across processes.
 * Usage: node --import tsx test/helpers/busy-rounds-worker.ts <url> <schema> <owner>
 *
 * Commands: run {session, text, whileBusy} (emits `answered` {session, text, output} or
 * `failed` {session, text, code}) | release {session}. Events: `ready`, `model` {session, text},
 * `held` {session} (a hold's model or tool call waits).
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { Agent, tool, type WhileBusy } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import type { ModelRequest } from '../../src/models/model.js';
import { contentText } from '../../src/items/item.js';
import { deferred, type Deferred } from './async.js';

const [where, schema, owner] = process.argv.slice(2);
if (!where || !schema || !owner) {
  console.error('usage: busy-rounds-worker.ts <url> <schema> <owner>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};

/** The text of the last user message a request holds. */
function lastUser(request: ModelRequest): string {
  const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
  const last = users.at(-1);
  return last && last.type === 'message' ? contentText(last.content) : '';
}

const gates = new Map<string, Deferred<void>>();
const gate = (session: string): Deferred<void> => {
  let g = gates.get(session);
  if (!g) gates.set(session, (g = deferred()));
  return g;
};
/** Waits for the session's release, or for the step's signal (a cancel). */
function held(session: string, signal: AbortSignal | undefined): Promise<void> {
  emit({ event: 'held', session });
  return new Promise<void>((resolve, reject) => {
    const stop = () => reject(new Error('cancelled'));
    if (signal?.aborted) return stop();
    signal?.addEventListener('abort', stop, { once: true });
    void gate(session).promise.then(resolve);
  });
}

const store = await PostgresSessionStore.open({ connectionString: where, schema, poolSize: 4 });
const wait = tool({
  name: 'wait',
  description: 'Waits until released',
  parameters: z.object({}),
  execute: async (_args, { signal, context }) => {
    await held(context.sessionId ?? '', signal);
    return 'waited';
  },
});
const model = new ScriptedModel(async (request) => {
  const text = lastUser(request);
  const session = request.instructions ?? ''; // the session's id (see `instructions`)
  emit({ event: 'model', session, text });
  if (text === 'hold') await held(session, undefined); // the model step stops on a cancel
  const toolDone = request.items.some((i) => i.type === 'tool_result');
  if (text === 'hold-tool' && !toolDone) {
    return { toolCalls: [{ name: 'wait', arguments: {}, callId: `wait_${session}` }] };
  }
  return { text: `answer to ${text}` };
});
const agent = new Agent({
  name: 'busy',
  instructions: ({ sessionId }) => sessionId ?? '',
  model,
  store,
  tools: [wait],
  lease: { owner, ttlMs: 2_000 },
});

interface Command {
  cmd: string;
  session: string;
  text?: string;
  whileBusy?: WhileBusy;
}

function handle({ cmd, session, text = '', whileBusy }: Command): void {
  if (cmd === 'release') {
    gate(session).resolve();
    return;
  }
  const key = { sessionId: session, userId: 'u1' };
  agent.run(text, { ...key, ...(whileBusy ? { whileBusy } : {}) }).then(
    (result) => emit({ event: 'answered', session, text, output: result.output }),
    (error: unknown) => {
      const code = (error as { code?: string }).code ?? (error as Error).name;
      emit({ event: 'failed', session, text, code, message: (error as Error).message });
    },
  );
}

emit({ event: 'ready', pid: process.pid });
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim()) handle(JSON.parse(line) as Command);
}
