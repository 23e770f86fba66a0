import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { Agent, LevelSessionStore, tool } from '../../src/index.js';
import { createA2AHandler, toNodeListener } from '../../src/a2a.js';
import { ScriptedModel } from '../../src/testing.js';
import { lastResult } from './sub-agent-fixtures.js';

/**
 * Process B of the two-process A2A tests: agent B, on the LevelDB folder argv[2], served over
 * A2A (`createA2AHandler`) on 127.0.0.1 for user `alice`. B counts invoices with a tool whose
 * effect is recorded in the ledger file (argv[3]) and that goes on only when the test says
 * `release` on stdin (no sleep): it is in flight for as long as the test needs. Events on
 * stdout, one JSON line each: `listening` (url), `rpc` (each JSON-RPC method received),
 * `working` (the tool began).
 */
const [db, ledger] = process.argv.slice(2) as [string, string];
const say = (event: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);

let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));
createInterface({ input: process.stdin }).on('line', (line) => {
  const { cmd } = JSON.parse(line) as { cmd: string };
  if (cmd === 'release') release();
});

const countInvoices = tool({
  name: 'count_invoices',
  description: 'Counts the invoices',
  parameters: z.object({}),
  execute: async () => {
    appendFileSync(ledger, 'started\n');
    say('working');
    await released;
    appendFileSync(ledger, 'done\n');
    return '42';
  },
});
const store = await LevelSessionStore.open({ path: db });
const b = new Agent({
  name: 'b',
  store,
  tools: [countInvoices],
  model: new ScriptedModel((request) => {
    const said = lastResult(request);
    return said === undefined
      ? { toolCalls: [{ name: 'count_invoices' }] }
      : { text: `B counted ${said} invoices` };
  }),
});

let listener: ReturnType<typeof toNodeListener> = (_req, res) => res.end();
const server = createServer((req, res) => listener(req, res));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const handler = createA2AHandler({ agent: b, userId: () => 'alice', card: { url } });
listener = toNodeListener(async (request: Request) => {
  if (request.method === 'POST') {
    const body = (await request
      .clone()
      .json()
      .catch(() => undefined)) as { method?: string } | undefined;
    say('rpc', { method: body?.method });
  }
  return handler(request);
});
say('listening', { url });
