import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import {
  agentMessage,
  publishAnswer,
  publishStatus,
  publishTask,
  serveSdkAgent,
} from './a2a-sdk-server.js';

/**
 * Process B of the two-process A2A tests: an A2A server on 127.0.0.1 whose work (recorded in
 * the ledger file, argv[2]) goes on only when the test says `release` on stdin (no sleep):
 * it is in flight for as long as the test needs. Events on stdout, one JSON line each:
 * `listening` (url), `rpc` (each JSON-RPC method received), `working` (a task's work began).
 */
const ledger = process.argv[2]!;
const say = (event: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);

let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));
createInterface({ input: process.stdin }).on('line', (line) => {
  const { cmd } = JSON.parse(line) as { cmd: string };
  if (cmd === 'release') release();
});

const executor: AgentExecutor = {
  execute: async (ctx, bus) => {
    const input = ctx.userMessage.parts
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join('');
    publishTask(ctx, bus);
    publishStatus(ctx, bus, TaskState.TASK_STATE_WORKING);
    appendFileSync(ledger, `started ${input}\n`);
    say('working', { taskId: ctx.taskId });
    await released;
    appendFileSync(ledger, 'done\n');
    publishAnswer(ctx, bus, `B counted 42 invoices (${input})`);
    const usage = { agentstate: { usage: { inputTokens: 70, outputTokens: 30 } } };
    publishStatus(
      ctx,
      bus,
      TaskState.TASK_STATE_COMPLETED,
      agentMessage(ctx, `done-${ctx.taskId}`, [], usage),
    );
  },
  cancelTask: async () => {},
};

const server = await serveSdkAgent(executor, 'b', (method) => say('rpc', { method }));
say('listening', { url: server.url });
