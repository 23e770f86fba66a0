/**
 * The A2A bench (issue 47): one call of a sub-agent over A2A on 127.0.0.1 against the same call
 * of the same agent as a local sub-agent. Agent B answers at once (a scripted, zero-latency
 * model); the caller A calls it as a tool and answers with what it said. Over A2A, B is served
 * by `createA2AHandler` (its sessions in memory) and A's call is `remoteAgent`'s: a `ListTasks`
 * (a task to re-attach to?) and a streamed `SendMessage` followed to the task's end.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type AnyTool } from '../../src/index.js';
import { createA2AHandler, remoteAgent, toNodeListener } from '../../src/a2a.js';
import { ScriptedModel } from '../../src/testing.js';
import { lastResult } from '../../test/helpers/sub-agent-fixtures.js';
import { median, now } from '../stats.js';
import { rowsOf, type BenchPart } from '../table.js';

/** One run's medians. */
export interface A2ARun {
  localMs: number;
  remoteMs: number;
  ratio: number;
}

/** Agent B: answers at once. */
const agentB = () =>
  new Agent({ name: 'b', model: new ScriptedModel(() => ({ text: 'B says 42' })) });

/** Agent A, calling `sub` and answering with what it said. */
const agentA = (sub: AnyTool) =>
  new Agent({
    name: 'a',
    model: new ScriptedModel((request) => {
      const said = lastResult(request);
      return said === undefined
        ? { toolCalls: [{ name: 'ask_b', arguments: { input: 'the answer?' } }] }
        : { text: `A heard: ${said}` };
    }),
    tools: [sub],
  });

/** B served over A2A (`createA2AHandler`) on 127.0.0.1; its URL and how to stop it. */
async function serveB(): Promise<{ url: string; close(): Promise<void> }> {
  let listener: ReturnType<typeof toNodeListener> = (_req, res) => res.end();
  const server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  listener = toNodeListener(
    createA2AHandler({ agent: agentB(), userId: () => 'bench', card: { url } }),
  );
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function timeCalls(a: Agent, calls: number, tag: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = now();
    const result = await a.run('go', { sessionId: `${tag}-${i}` });
    times.push(now() - started);
    if (result.output !== 'A heard: B says 42')
      throw new Error(`unexpected: ${String(result.output)}`);
  }
  return median(times);
}

/** `npm run bench -- --a2a`: `runs` runs of `calls` calls each way, interleaved. */
export async function a2aPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<BenchPart<{ a2a: A2ARun[] }>> {
  const calls = config.smoke ? 5 : 100;
  const server = await serveB();
  const runs: A2ARun[] = [];
  try {
    const local = agentA(agentB().asTool({ name: 'ask_b', description: 'Asks B' }));
    const remote = agentA(
      remoteAgent({ name: 'b', url: server.url }).asTool({ name: 'ask_b', description: 'Asks B' }),
    );
    // Warm both paths (module loading, the SDK client's card fetch).
    await timeCalls(local, 3, 'warm-local');
    await timeCalls(remote, 3, 'warm-remote');
    for (let run = 0; run < config.runs; run++) {
      log(`A2A: ${calls} sub-agent calls each way, run ${run + 1}/${config.runs}`);
      const localMs = await timeCalls(local, calls, `local-${run}`);
      const remoteMs = await timeCalls(remote, calls, `remote-${run}`);
      runs.push({ localMs, remoteMs, ratio: remoteMs / localMs });
    }
  } finally {
    await server.close();
  }
  const rows = rowsOf('A2A: one sub-agent call, 127.0.0.1 (median per run)', runs, [
    ['local sub-agent call', 'ms', (r) => r.localMs],
    ['remote sub-agent call over A2A', 'ms', (r) => r.remoteMs],
    ['A2A / local', 'x', (r) => r.ratio],
  ]);
  return { kind: 'A2A', rows, targets: [], raw: { a2a: runs }, notes: [] };
}
