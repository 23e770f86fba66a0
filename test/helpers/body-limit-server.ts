import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { Agent } from '../../src/index.js';
import { MemorySessionStore, ScriptedModel } from '../../src/testing.js';
import { createChatHandler, toNodeListener } from '../../src/http.js';
import { startInspector } from '../../src/inspect.js';

/**
 * A child process serving the chat handler (through `toNodeListener`) and the inspector on
 * 127.0.0.1, each with a body limit of 1 MB; its stdout says `ready` with both ports, and each
 * `memory` command on stdin is answered with the process's peak resident set (`maxRssBytes`)
 * and heap in use.
 */
const LIMIT = 1024 * 1024;
const store = new MemorySessionStore();
const agent = new Agent({ name: 'a', model: new ScriptedModel(() => ({ text: 'ok' })), store });
const handler = createChatHandler({
  agent,
  basePath: '/api',
  maxBodyBytes: LIMIT,
  userId: () => 'alice',
});
const server = createServer(toNodeListener(handler));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const inspector = await startInspector({
  runtime: agent.runtimeFor(store),
  token: 'inspector-secret-token',
  maxBodyBytes: LIMIT,
});
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
say({ event: 'ready', chat: (server.address() as AddressInfo).port, inspector: inspector.port });
createInterface({ input: process.stdin }).on('line', () => {
  say({
    event: 'memory',
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    heapUsed: process.memoryUsage().heapUsed,
  });
});
