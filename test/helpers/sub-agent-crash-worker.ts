/**
 * Child process of the sub-agent crash test:
 *   node --import tsx test/helpers/sub-agent-crash-worker.ts <dbDir> <logFile> <start|resume>
 * with `KILL=<point>:<k>` to SIGKILL itself at the k-th (1-based, counted in the log across
 * processes) `leaf-tool` call (after its side effect, before it is journaled) or `mid-model`
 * call (before it answers).
 *
 * Agents: `lead` asks its sub-agent `mid` once; `mid` asks its sub-agent `leaf` twice, one
 * after the other, then answers with both results; `leaf` calls `tally` once and answers with
 * its result. So a kill in `leaf-tool` stops a grandchild mid-step and one in `mid-model` a
 * child. Every tool call and model call appends a line to the log; prints `result <json>`.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, LevelSessionStore, tool, type ModelRequest } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';

const [dbDir, logFile, mode] = process.argv.slice(2) as [string, string, 'start' | 'resume'];
const [killPoint, killAt] = (process.env['KILL'] ?? ':').split(':') as [string, string];

const linesOf = (kind: string): number =>
  existsSync(logFile)
    ? readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith(`${kind} `)).length
    : 0;

/** Appends `line` to the log, then dies if this is the kill point. */
function reach(kind: 'leaf-tool' | 'mid-model', line: string): void {
  appendFileSync(logFile, `${kind} ${line} ${process.pid}\n`);
  if (killPoint === kind && linesOf(kind) === Number(killAt)) process.kill(process.pid, 'SIGKILL');
}

const lastResult = (request: ModelRequest): string | undefined => {
  const last = request.items[request.items.length - 1];
  return last?.type === 'tool_result' ? last.output : undefined;
};
const results = (request: ModelRequest): string[] =>
  request.items.flatMap((i) => (i.type === 'tool_result' ? [i.output] : []));
const task = (request: ModelRequest): string => {
  const first = request.items.find((i) => i.type === 'message' && i.role === 'user');
  return first?.type === 'message' && typeof first.content === 'string' ? first.content : '';
};

const tally = tool({
  name: 'tally',
  description: 'Counts a leaf',
  parameters: z.object({ leaf: z.string() }),
  execute: ({ leaf }, { callId }) => {
    reach('leaf-tool', `${callId} ${leaf}`);
    return `${leaf}=${leaf.length * 7}`;
  },
});

const leaf = new Agent({
  name: 'leaf',
  model: new ScriptedModel((request) => {
    appendFileSync(logFile, `model leaf ${task(request)} ${request.items.length} ${process.pid}\n`);
    const result = lastResult(request);
    return result === undefined
      ? { toolCalls: [{ name: 'tally', arguments: { leaf: task(request) } }] }
      : { text: `counted ${result}` };
  }),
  tools: [tally],
});

const mid = new Agent({
  name: 'mid',
  model: new ScriptedModel((request) => {
    reach('mid-model', `${request.items.length}`);
    const done = results(request);
    if (done.length < 2) {
      return { toolCalls: [{ name: 'ask_leaf', arguments: { input: `leaf-${done.length}` } }] };
    }
    return { text: `mid saw: ${done.join(' + ')}` };
  }),
  tools: [leaf.asTool({ name: 'ask_leaf', description: 'Counts one leaf' })],
});

const lead = new Agent({
  name: 'lead',
  model: new ScriptedModel((request) => {
    appendFileSync(logFile, `model lead ${request.items.length} ${process.pid}\n`);
    const result = lastResult(request);
    return result === undefined
      ? { toolCalls: [{ name: 'ask_mid', arguments: { input: 'count the leaves' } }] }
      : { text: `lead: ${result}` };
  }),
  tools: [mid.asTool({ name: 'ask_mid', description: 'Counts leaves' })],
});

const store = await LevelSessionStore.open({ path: join(dbDir, 'db') });
try {
  const key = { sessionId: 'nested', userId: 'u' };
  const result =
    mode === 'start'
      ? await lead.run('go', { ...key, store })
      : await lead.resume(key.sessionId, { userId: key.userId, store });
  process.stdout.write(
    `result ${JSON.stringify({
      output: result.output,
      usage: result.usage,
      subRuns: result.subRuns.map((r) => [r.agentPath.join('>'), r.status, r.turns]),
      history: await store.readHistory(key),
    })}\n`,
  );
} finally {
  await store.close();
}
