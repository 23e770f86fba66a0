/**
 * Agents over A2A, in three processes: process B serves the bills agent over A2A; process A1 runs
 * an assistant whose sub-agent is B (`remoteAgent`), and pauses when B asks for approval (a bill
 * over $100); process A2 approves that question and the run goes on, B pays, A's run ends with
 * B's answer.
 *
 *   npx tsx examples/a2a.ts                 # all of it: B in the background, then A1 and A2
 *   npx tsx examples/a2a.ts serve           # process B only: serve until killed (prints its URL)
 *   npx tsx examples/a2a.ts ask <url>       # process A1 only: ask, pause on B's question
 *   npx tsx examples/a2a.ts approve <url>   # process A2 only: approve, resume to the end
 *
 * Offline: both models are scripted. Each side keeps its sessions in its own LevelDB folder under
 * AGENTSTATE_DIR (a temp folder when unset and everything runs).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, LevelSessionStore } from '../src/index.js';
import { createA2AHandler, remoteAgent, toNodeListener } from '../src/a2a.js';
import { ScriptedModel } from '../src/testing.js';
import { bills } from './agents/bills.js';
import { runPhase, say } from './processes.js';

const SESSION = 'assistant-1';

/** Process B: the bills agent served over A2A for user alice, until the process is killed. */
async function serve(dir: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'b') });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = createA2AHandler({
    agent: new Agent({ ...bills.options, store }),
    // Your own auth goes here (a bearer token, say): every task belongs to this user.
    userId: (request) => (request.headers.get('x-user') === 'alice' ? 'alice' : undefined),
    card: { url, description: 'Pays bills; one over $100 needs approval' },
  });
  server.on('request', toNodeListener(handler));
  say(`B serves the bills agent over A2A at ${url}`);
}

/** Process A's assistant: B as its sub-agent, on A's own store. */
function assistant(url: string, store: LevelSessionStore): Agent {
  const remoteBills = remoteAgent({ name: 'bills', url, headers: { 'x-user': 'alice' } });
  return new Agent({
    name: 'assistant',
    store,
    tools: [remoteBills.asTool({ name: 'pay_bills', description: 'Pays bills for the user' })],
    model: new ScriptedModel((request) => {
      const result = request.items.find((i) => i.type === 'tool_result');
      return result
        ? { text: `The bills agent says: ${result.output}` }
        : { toolCalls: [{ name: 'pay_bills', arguments: { input: 'Pay ACME Power $120' } }] };
    }),
  });
}

/** Process A1: ask; the run pauses on B's question, and this process ends. */
async function ask(dir: string, url: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'a') });
  try {
    const result = await assistant(url, store).run('Please pay my power bill.', {
      sessionId: SESSION,
      userId: 'alice',
    });
    say(`A's run paused for ${result.interruptionReason}:`);
    for (const i of result.interruptions) {
      const { question } = i.arguments as { question: string };
      say(
        `  ${i.toolName} by ${i.agentPath?.join(' > ') ?? 'assistant'}: ${question.split('\n')[1]}`,
      );
    }
  } finally {
    await store.close();
  }
}

/** Process A2: approve B's question; B goes on, A's run ends with B's answer. */
async function approve(dir: string, url: string): Promise<void> {
  const store = await LevelSessionStore.open({ path: join(dir, 'a') });
  try {
    const agent = assistant(url, store);
    const key = { sessionId: SESSION, userId: 'alice' };
    const { runStatus } = await agent.runtimeFor(store).getSession(key);
    let result;
    for (const i of runStatus?.interruptions ?? []) {
      say(`Approving ${i.callId} (${i.toolName}).`);
      result = await agent.approve(SESSION, i.callId, { userId: 'alice' });
    }
    say(`A's run finished: ${result?.output}`);
  } finally {
    await store.close();
  }
}

/** Everything: B in a child process, then A1 and A2 each in their own. */
async function all(): Promise<void> {
  const given = process.env['AGENTSTATE_DIR'];
  const dir = given ?? (await mkdtemp(join(tmpdir(), 'agentstate-a2a-')));
  const file = fileURLToPath(import.meta.url);
  const b = spawn(process.execPath, [...process.execArgv, file, 'serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, AGENTSTATE_DIR: dir },
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      b.on('exit', (code) => reject(new Error(`process B exited with ${code}`)));
      createInterface({ input: b.stdout }).on('line', (line) => {
        console.log(line);
        const found = / at (http:\/\/\S+)$/.exec(line);
        if (found) resolve(found[1]!);
      });
    });
    await runPhase(file, dir, 'ask', url);
    say('Process A1 has exited; A2 decides in a new process.');
    await runPhase(file, dir, 'approve', url);
  } finally {
    b.kill();
    if (!given) await rm(dir, { recursive: true, force: true });
  }
}

const [phase, url] = process.argv.slice(2);
const dir = process.env['AGENTSTATE_DIR'] ?? './.agentstate';
if (phase === undefined) await all();
else if (phase === 'serve') await serve(dir);
else if (phase === 'ask' && url) await ask(dir, url);
else if (phase === 'approve' && url) await approve(dir, url);
else throw new Error('usage: a2a.ts [serve | ask <url> | approve <url>]');
