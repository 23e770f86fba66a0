/**
 * Child process of test/sessions/while-busy-processes.int.test.ts: one process of an app whose agent
 * answers `answer to <message>`, on LevelDB or PostgreSQL. A message `hold` waits in its model
 * call, `hold-tool` in a tool call, until the `release` command, and `stall` in its model call
 * until `unstall` (or forever: a SIGKILL ends it). Every model call is printed, so the test counts each message's calls across processes.
 * Usage: node --import tsx test/helpers/busy-worker.ts <level|pg> <path|url> <schema> <owner> <policy>
 *
 * Commands: run {text, whileBusy?, messageId?} (emits `answered` {text, output, id} or `failed`
 * {text, code, messageId?, again?, runId?}) | release | unstall | inbox (emits `inbox` {count}: the session's queued messages) | recover (emits `recovered` {count} once the recovered runs and the
 * messages queued for them are answered) | strand {text} (emits `stranded`: the message stored in
 * the session's inbox as another process queues it, with no drain after; as if this process
 * died before its run's end read the inbox). Events: `ready`, `model` {text}, `tool` {text}.
 */
import { createInterface } from 'node:readline';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  tool,
  type SessionStore,
  type WhileBusy,
} from '../../src/index.js';
import { PostgresSessionStore } from '../../src/postgres.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import type { ModelRequest } from '../../src/models/model.js';
import { contentText, toInputItems } from '../../src/items/item.js';
import { deferred } from './async.js';

const [kind, where, schema, owner, policy] = process.argv.slice(2);
if (!kind || !where || !schema || !owner || !policy) {
  console.error('usage: busy-worker.ts <level|pg> <path|url> <schema> <owner> <policy>');
  process.exit(2);
}
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
const BUSY_KEY = { sessionId: 'chat', userId: 'u1' };

/** The text of the last user message a request holds. */
function lastUser(request: ModelRequest): string {
  const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
  const last = users.at(-1);
  return last && last.type === 'message' ? contentText(last.content) : '';
}

const released = deferred();
const unstalled = deferred();
const store: SessionStore =
  kind === 'pg'
    ? await PostgresSessionStore.open({ connectionString: where, schema, poolSize: 4 })
    : await LevelSessionStore.open({ path: where });
const wait = tool({
  name: 'wait',
  description: 'Waits until released',
  parameters: z.object({}),
  execute: async () => {
    emit({ event: 'tool' });
    await released.promise;
    return 'waited';
  },
});
const model = new ScriptedModel(async (request) => {
  const text = lastUser(request);
  emit({ event: 'model', text });
  if (text === 'hold') await released.promise;
  if (text === 'stall') await unstalled.promise;
  const toolDone = request.items.some((i) => i.type === 'tool_result');
  if (text === 'hold-tool' && !toolDone) {
    return { toolCalls: [{ name: 'wait', arguments: {}, callId: `wait_${process.pid}` }] };
  }
  return { text: `answer to ${text}` };
});
const agent = new Agent({
  name: 'busy',
  model,
  store,
  tools: [wait],
  whileBusy: policy as WhileBusy,
  lease: { owner, ttlMs: 2_000 },
});

interface Command {
  cmd: string;
  text?: string;
  whileBusy?: WhileBusy;
  messageId?: string;
}

function handle(command: Command): void {
  if (command.cmd === 'release') {
    released.resolve();
    return;
  }
  if (command.cmd === 'unstall') {
    unstalled.resolve();
    return;
  }
  if (command.cmd === 'inbox') {
    void store.queuedMessages!(BUSY_KEY).then((queued) =>
      emit({ event: 'inbox', count: queued.length }),
    );
    return;
  }
  if (command.cmd === 'strand') {
    const items = toInputItems(command.text!);
    void store.queueMessage!({
      key: BUSY_KEY,
      kind: 'queue',
      items,
      options: {},
      at: Date.now(),
    }).then(() => emit({ event: 'stranded', text: command.text }));
    return;
  }
  if (command.cmd === 'recover') {
    agent
      .runtimeFor(store)
      .recover({ olderThan: 0, userId: BUSY_KEY.userId })
      .then(
        (runs) => emit({ event: 'recovered', count: runs.length }),
        (error: unknown) => emit({ event: 'failed', code: (error as { code?: string }).code }),
      );
    return;
  }
  const text = command.text!;
  const options = {
    ...(command.whileBusy ? { whileBusy: command.whileBusy } : {}),
    ...(command.messageId ? { messageId: command.messageId } : {}),
  };
  agent.run(text, { ...BUSY_KEY, ...options }).then(
    (result) => emit({ event: 'answered', text, output: result.output, id: result.id }),
    (error: unknown) => {
      const { code, messageId, again, runId } = error as {
        code?: string;
        messageId?: string;
        again?: boolean;
        runId?: string;
      };
      const message = (error as Error).message;
      emit({
        event: 'failed',
        text,
        code: code ?? (error as Error).name,
        message,
        messageId,
        again,
        runId,
      });
    },
  );
}

emit({ event: 'ready', pid: process.pid });
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim()) handle(JSON.parse(line) as Command);
}
