/**
 * One conversation played the same way under each durability mode (test/session-host/durability.test.ts):
 * a tool call, two parallel ones, an approval pause then its resume, and a sub-agent call, on
 * a fake clock so every stored time is the same in every mode.
 */
import { z } from 'zod';
import {
  Agent,
  tool,
  type Durability,
  type Item,
  type RunResult,
  type SessionStore,
} from '../../src/index.js';
import type { ModelRequest } from '../../src/models/model.js';
import { FakeClock, ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { lastUserText } from './session-fixtures.js';

export const SCENARIO_KEY = { sessionId: 'modes', userId: 'alice' } as const;

const lastItem = (request: ModelRequest): Item | undefined => request.items.at(-1);

/** Answers with the tool results when the last item is one, else asks for the user's tools. */
function script(request: ModelRequest): ScriptedResponse {
  const last = lastItem(request);
  if (last?.type === 'tool_result') {
    const done = request.items.filter((i) => i.type === 'tool_result').map((i) => i.output);
    return { text: `done: ${done.join(', ')}` };
  }
  const said = lastUserText(request);
  if (said === 'add') return { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] };
  if (said === 'both') {
    return {
      toolCalls: [
        { name: 'add', arguments: { a: 3, b: 4 } },
        { name: 'add', arguments: { a: 5, b: 6 } },
      ],
    };
  }
  if (said === 'send') return { toolCalls: [{ name: 'send', arguments: { to: 'bob' } }] };
  if (said === 'ask') return { toolCalls: [{ name: 'helper', arguments: { input: 'sum 7' } }] };
  return { text: `you said ${said}` };
}

/** How many times each tool ran, and every tool execution's idempotency key. */
export interface Executions {
  add: number;
  send: number;
  keys: string[];
}

/** The scenario's agent (and its sub-agent `helper`), with `durability` when given. */
export function scenarioAgent(
  store: SessionStore,
  clock: FakeClock,
  durability?: Durability,
): { agent: Agent; executions: Executions } {
  const executions: Executions = { add: 0, send: 0, keys: [] };
  const add = tool({
    name: 'add',
    description: 'Adds',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }, { callId }) => {
      executions.add += 1;
      executions.keys.push(callId);
      return a + b;
    },
  });
  const send = tool({
    name: 'send',
    description: 'Sends a message',
    parameters: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }, { callId }) => {
      executions.send += 1;
      executions.keys.push(callId);
      return `sent to ${to}`;
    },
  });
  const helper = new Agent({
    name: 'helper',
    model: new ScriptedModel((request) =>
      lastItem(request)?.type === 'tool_result'
        ? { text: `helper: ${String((lastItem(request) as { output: string }).output)}` }
        : { toolCalls: [{ name: 'add', arguments: { a: 7, b: 0 } }] },
    ),
    tools: [add],
    clock,
  });
  const agent = new Agent({
    name: 'lead',
    model: new ScriptedModel(script),
    tools: [add, send, helper.asTool({ name: 'helper', description: 'Helps' })],
    store,
    clock,
    ...(durability ? { durability } : {}),
  });
  return { agent, executions };
}

/** Plays the conversation; returns each run's result. */
export async function playScenario(agent: Agent): Promise<RunResult[]> {
  const options = { ...SCENARIO_KEY };
  const results: RunResult[] = [];
  for (const said of ['hello', 'add', 'both']) results.push(await agent.run(said, options));
  const paused = await agent.run('send', options);
  results.push(paused);
  results.push(await agent.resume(paused.state.approve(paused.interruptions[0]!.callId)));
  results.push(await agent.run('ask', options));
  return results;
}

/**
 * Everything the store holds about the scenario's session, run ids replaced by their order
 * (they are random), audit ids dropped and the session's version (the count of its saves)
 * and update time left out: what must be equal in every mode.
 */
export async function storedScenario(
  agent: Agent,
  store: SessionStore,
  results: RunResult[],
): Promise<unknown> {
  const runtime = agent.runtimeFor(store);
  const runIds = [...new Set(results.flatMap((r) => [r.id, ...r.subRuns.map((s) => s.runId)]))];
  const {
    version: _version,
    updatedAt: _updatedAt,
    ...info
  } = await runtime.getSessionInfo(SCENARIO_KEY);
  const view = await runtime.getSession(SCENARIO_KEY);
  const audit = (await runtime.auditLog({ userId: SCENARIO_KEY.userId })).entries.map(
    ({ id: _id, ...entry }) => entry,
  );
  // run ids replaced before the audit entries are sorted: their order must not depend on them
  const normal = (json: string) =>
    runIds.reduce((text, id, i) => text.replaceAll(id, `run#${i}`), json);
  const dump = {
    info,
    view: { ...view, version: undefined, updatedAt: undefined },
    history: await store.readHistory(SCENARIO_KEY),
    journals: await Promise.all(runIds.map((id) => store.readRunJournal(SCENARIO_KEY, id))),
    audit: audit.map((e) => normal(JSON.stringify(e))).sort(),
    userUsage: await store.userUsage?.(SCENARIO_KEY.userId),
    results: results.map(({ state: _state, ...r }) => r),
  };
  return JSON.parse(normal(JSON.stringify(dump))) as unknown;
}
