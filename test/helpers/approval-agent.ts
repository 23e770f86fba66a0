import { contentText } from '../../src/items/item.js';
import { z } from 'zod';
import {
  Agent,
  tool,
  type AgentOptions,
  type Item,
  type RunContext,
  type SessionStore,
} from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';

/**
 * Shared pieces of the approval tests, the child-process helper and the fixture script: a
 * deterministic scripted model and tools that count how often they run.
 */

/** How often each tool executed and how often `needsApproval` was evaluated, in this process. */
export interface ApprovalCounters {
  executed: Record<string, number>;
  checked: number;
  /** Contexts `needsApproval` was called with. */
  checkContexts: { sessionId: string | undefined; userId: string | undefined }[];
}

export const newCounters = (): ApprovalCounters => ({
  executed: {},
  checked: 0,
  checkContexts: [],
});

const bump = (counters: ApprovalCounters, name: string): void => {
  counters.executed[name] = (counters.executed[name] ?? 0) + 1;
};

/**
 * `send_email` always needs approval; `delete_file` asks a (async) function, which approves
 * only paths under `/tmp`; `lookup` never needs approval.
 */
export function approvalTools(counters: ApprovalCounters) {
  const sendEmail = tool({
    name: 'send_email',
    description: 'Sends an email',
    parameters: z.object({ to: z.string(), body: z.string() }),
    needsApproval: true,
    execute: ({ to }) => {
      bump(counters, 'send_email');
      return `sent to ${to}`;
    },
  });
  const deleteFile = tool({
    name: 'delete_file',
    description: 'Deletes a file',
    parameters: z.object({ path: z.string() }),
    needsApproval: async ({ path }: { path: string }, context: RunContext) => {
      counters.checked += 1;
      counters.checkContexts.push({ sessionId: context.sessionId, userId: context.userId });
      await Promise.resolve();
      return !path.startsWith('/tmp/');
    },
    execute: ({ path }) => {
      bump(counters, 'delete_file');
      return `deleted ${path}`;
    },
  });
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a word up',
    parameters: z.object({ word: z.string() }),
    idempotent: true, // reads only: a call in doubt after a crash runs again
    execute: ({ word }) => {
      bump(counters, 'lookup');
      return `${word}: found`;
    },
  });
  return [sendEmail, deleteFile, lookup];
}

/** Items after the last user message. */
export function sinceLastUser(items: Item[]): Item[] {
  let last = -1;
  items.forEach((item, i) => {
    if (item.type === 'message' && item.role === 'user') last = i;
  });
  return items.slice(last + 1);
}

/**
 * A deterministic script: the last user message is a JSON array of tool calls to make
 * (`[{ "name": "send_email", "arguments": {...} }]`); once they have results the model answers
 * with a summary of them. Works the same in any process (call ids derive from the request).
 */
export function approvalModel(): ScriptedModel {
  return new ScriptedModel(
    (request): ScriptedResponse => {
      const turn = sinceLastUser(request.items);
      const results = turn.filter((i) => i.type === 'tool_result');
      if (results.length === 0) {
        const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
        const last = users[users.length - 1];
        const content = last && last.type === 'message' ? contentText(last.content) : '[]';
        return { toolCalls: JSON.parse(content) as ScriptedResponse['toolCalls'] };
      }
      // Parallel calls finish in any order: summarise them in call order.
      const summary = results
        .sort((a, b) => callOrder(a.callId) - callOrder(b.callId))
        .map((r) => `${r.name}${r.isError ? ' (error)' : ''}: ${r.output}`)
        .join(' | ');
      return { text: `Done. ${summary}` };
    },
    { recordCalls: true },
  );
}

/** Position of a call in its turn, from ScriptedModel's default ids (`call_<items>_<index>`). */
export function callOrder(callId: string): number {
  return Number(/_(\d+)$/.exec(callId)?.[1] ?? 0);
}

/** The user message that makes `approvalModel` call these tools. */
export const callTools = (
  ...calls: { name: string; arguments: Record<string, unknown> }[]
): string => JSON.stringify(calls);

/** An agent over `approvalModel` and `approvalTools` (no store: runs stay in memory). */
export function approvalAgent(
  store: SessionStore | undefined,
  options: Partial<AgentOptions> & { counters?: ApprovalCounters; model?: ScriptedModel } = {},
) {
  const { counters: given, model: scripted, ...agentOptions } = options;
  const counters = given ?? newCounters();
  const model = scripted ?? approvalModel();
  const agent = new Agent({
    name: 'assistant',
    ...agentOptions,
    model,
    store,
    tools: approvalTools(counters),
  });
  return { agent, model, counters };
}
