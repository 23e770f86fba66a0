/**
 * The sub-agent scenario of the crash test, run by the crash worker with `CRASH_SCENARIO=sub-agents`.
 *
 * Agents: `lead` asks its sub-agent `mid` once; `mid` asks its sub-agent `leaf` twice, one
 * after the other, then answers with both results; `leaf` calls `tally` once and answers with
 * its result. Every tool call and model call appends a line to the log. Kill points (see
 * crash-point.ts) count in the log across processes: `tool-after:<k>` stops the process in the
 * k-th `tally` call (a grandchild mid-step: after its side effect, before its journal entry),
 * `model:<k>` in the k-th model call of `mid` (a child mid-step).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ModelRequest } from '../../src/models/model.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import type { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { Agent } from '../../src/agent/agent.js';
import type { Durability } from '../../src/core/durability-policy.js';
import { NothingToResumeError, SessionNotFoundError } from '../../src/errors/session-errors.js';
import { tool } from '../../src/tools/tool.js';
import type { CrashCheckpoints } from './crash-point.js';
import type { CrashWorkerResult } from './crash-worker.js';

const SESSION = { sessionId: 'nested', userId: 'u' } as const;

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

/** The three agents, logging to `logFile` and stopping at the worker's kill point. */
function agents(logFile: string, checkpoints: CrashCheckpoints): Agent {
  const linesOf = (kind: string): number =>
    existsSync(logFile)
      ? readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith(`${kind} `)).length
      : 0;
  const log = (line: string) => appendFileSync(logFile, `${line} ${process.pid}\n`);

  const tally = tool({
    name: 'tally',
    description: 'Counts a leaf',
    parameters: z.object({ leaf: z.string() }),
    idempotent: true, // its call in doubt after a kill runs again (same call id)
    execute: async ({ leaf }, { callId }) => {
      log(`leaf-tool ${callId} ${leaf}`);
      await checkpoints.reach('tool-after', linesOf('leaf-tool'));
      return `${leaf}=${leaf.length * 7}`;
    },
  });
  const leaf = new Agent({
    name: 'leaf',
    model: new ScriptedModel((request) => {
      log(`model leaf ${task(request)} ${request.items.length}`);
      const result = lastResult(request);
      return result === undefined
        ? { toolCalls: [{ name: 'tally', arguments: { leaf: task(request) } }] }
        : { text: `counted ${result}` };
    }),
    tools: [tally],
  });
  const mid = new Agent({
    name: 'mid',
    model: new ScriptedModel(async (request) => {
      log(`mid-model ${request.items.length}`);
      await checkpoints.reach('model', linesOf('mid-model'));
      const done = results(request);
      if (done.length < 2) {
        return { toolCalls: [{ name: 'ask_leaf', arguments: { input: `leaf-${done.length}` } }] };
      }
      return { text: `mid saw: ${done.join(' + ')}` };
    }),
    tools: [leaf.asTool({ name: 'ask_leaf', description: 'Counts one leaf' })],
  });
  return new Agent({
    name: 'lead',
    model: new ScriptedModel((request) => {
      log(`model lead ${request.items.length}`);
      const result = lastResult(request);
      return result === undefined
        ? { toolCalls: [{ name: 'ask_mid', arguments: { input: 'count the leaves' } }] }
        : { text: `lead: ${result}` };
    }),
    tools: [mid.asTool({ name: 'ask_mid', description: 'Counts leaves' })],
  });
}

/** Starts or resumes the nested run to its end; what the worker prints. */
export async function runSubAgentScenario(
  store: LevelSessionStore,
  logFile: string,
  mode: 'start' | 'resume',
  checkpoints: CrashCheckpoints,
  durability?: Durability,
): Promise<CrashWorkerResult> {
  const lead = agents(logFile, checkpoints);
  const options = { userId: SESSION.userId, store, durability };
  const start = () => lead.run('go', { ...options, sessionId: SESSION.sessionId });
  const result =
    mode === 'start'
      ? await start()
      : await lead.resume(SESSION.sessionId, options).catch((error: unknown) => {
          // Killed before anything of the run was stored ('run' durability): start it again.
          if (error instanceof NothingToResumeError || error instanceof SessionNotFoundError)
            return start();
          throw error;
        });
  const view = await lead.runtimeFor(store).getSession(SESSION);
  return {
    output: result.output,
    turns: result.turns,
    runUsage: result.usage,
    sessionUsage: view.usage,
    userUsage: await store.userUsage(SESSION.userId),
    history: await store.readHistory(SESSION),
    subRuns: result.subRuns.map((r) => [r.agentPath.join('>'), r.status, r.turns]),
  };
}
