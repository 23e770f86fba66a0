import { itemsOfStep } from '../actors/session-log.js';
import type { Agent } from '../agent/agent.js';
import type { AgentOptions } from '../definition/agent-options.js';
import { RunNotFoundError } from '../errors/replay-errors.js';
import type { Item } from '../items/item.js';
import type {
  ModelRequestFacts,
  ModelStepOutput,
  RequestMemoryFacts,
} from '../machines/step-actor-io.js';
import { recallMessage } from '../memory/recall.js';
import type { RunUsage } from '../machines/run-usage.js';
import type { JournalEntry, SessionKey } from '../persistence/session-store.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { toToolSpec } from '../tools/tool.js';
import { handoffTool } from '../definition/handoff-tool.js';
import { HttpError } from './http-io.js';
import type { InspectorAgents } from './inspector-agents.js';
import { runDetail, type RunTreeNode } from './inspector-reads.js';

/** One item the request carried, with where it is in the history (absent: not in it). */
export interface SentItem {
  position?: number | undefined;
  /**
   * `summary`: a summary of the items before `upTo`; `pinned`: the newest user message kept in
   * front of the window; `memory`: the memories recalled from other sessions (see
   * `ModelRequestView.memory`).
   */
  role?: 'summary' | 'pinned' | 'memory' | undefined;
  item: Item;
}

/** A model step's request as it was sent, rebuilt from its journaled facts, and its answer. */
export interface ModelRequestView {
  runId: string;
  step: number;
  /** False for an answer journaled before agentstate recorded its request. */
  recorded: boolean;
  agent?: string | undefined;
  /** The system instructions as journaled with the request (absent: none were sent). */
  instructions?: string | undefined;
  /**
   * How the items were chosen: history positions, or a sub-agent run's own conversation. For
   * the history: the window `[start, end)` of the `end - from` items the model could read when
   * it was asked (`historyLength`: the history's length now), with the summary's and the
   * pinned message's positions.
   */
  source?:
    | {
        kind: 'history';
        start: number;
        end: number;
        from: number;
        summary?: number | undefined;
        pinned?: number | undefined;
        historyLength: number;
      }
    | { kind: 'sub-run' }
    | undefined;
  items?: SentItem[] | undefined;
  /**
   * What memory across sessions added, as journaled: the memories recalled (with their scores,
   * source session and time; their message is among `items` at `recalledAt`, role `memory`),
   * the working memory's version the instructions showed, what embedding cost.
   */
  memory?: RequestMemoryFacts | undefined;
  /** The tools offered; `parameters` from the agent's definition, when the inspector has it. */
  tools?: { name: string; description?: string; parameters?: Record<string, unknown> }[];
  settings?: { model?: string; maxOutputTokens?: number; [name: string]: unknown } | undefined;
  answer: {
    text?: string | undefined;
    toolCalls: { callId: string; name: string; arguments: string }[];
    usage: RunUsage;
    structured?: unknown;
    outputError?: unknown;
  };
}

/**
 * The request of model step `step` of run `runId` (the session's current or last run, or one of
 * their sub-agent runs) rebuilt at read time: the history items at the positions the step
 * journaled (or, for a sub-agent run, its input and the items of its earlier steps), the tools
 * it offered and its settings, with the journaled answer. 404 for a run or step the session
 * does not have, 400 for a step that is not a model call.
 */
export async function modelRequest(
  runtime: SessionRuntime,
  agents: InspectorAgents,
  key: SessionKey,
  runId: string,
  step: number,
): Promise<ModelRequestView> {
  const found = await findRun(runtime, key, runId);
  const journal = await readCheckedJournal(runtime.store, key, runId);
  const entry = journal.find((e) => e.step === step);
  if (!entry) {
    throw new HttpError(404, 'STEP_NOT_FOUND', `Run "${runId}" has no journaled step ${step}`);
  }
  if (entry.kind !== 'model') {
    throw new HttpError(400, 'NOT_A_MODEL_STEP', `Step ${step} is a ${entry.kind} step`);
  }
  const out = entry.output as ModelStepOutput;
  const answer = {
    text: out.text,
    toolCalls: out.toolCalls.map(({ callId, name, arguments: args }) => ({
      callId,
      name,
      arguments: args,
    })),
    usage: out.usage,
    ...(out.structured === undefined ? {} : { structured: out.structured }),
    ...(out.outputError ? { outputError: out.outputError } : {}),
  };
  const facts = out.request;
  if (!facts) return { runId, step, recorded: false, answer };
  const { model, maxOutputTokens, settings } = facts;
  return {
    runId,
    step,
    recorded: true,
    agent: facts.agent,
    ...(facts.instructions === undefined ? {} : { instructions: facts.instructions }),
    ...withRecalled(await sentItems(runtime, key, facts, journal, step, found), facts.memory),
    ...(facts.memory ? { memory: facts.memory } : {}),
    tools: toolsOffered(agents.defined(), facts),
    settings: {
      ...settings,
      ...(model === undefined ? {} : { model }),
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    },
    answer,
  };
}

/** The run in the session's tree (its current or last run, or a sub-agent run of them), and its parent. */
async function findRun(
  runtime: SessionRuntime,
  key: SessionKey,
  runId: string,
): Promise<{ node: RunTreeNode; parent?: RunTreeNode | undefined }> {
  const view = await runtime.getSession(key);
  const roots = [view.run?.context.runId, view.lastRun?.runId].filter(
    (id, i, all): id is string => id !== undefined && all.indexOf(id) === i,
  );
  for (const rootId of roots) {
    const { tree } = await runDetail(runtime, key, rootId);
    const hit = search(tree, runId, undefined);
    if (hit) return hit;
  }
  throw new RunNotFoundError(key.sessionId, runId);
}

function search(
  node: RunTreeNode,
  runId: string,
  parent: RunTreeNode | undefined,
): { node: RunTreeNode; parent?: RunTreeNode | undefined } | undefined {
  if (node.runId === runId) return { node, parent };
  for (const child of node.children) {
    const hit = search(child, runId, node);
    if (hit) return hit;
  }
  return undefined;
}

async function sentItems(
  runtime: SessionRuntime,
  key: SessionKey,
  facts: ModelRequestFacts,
  journal: readonly JournalEntry[],
  step: number,
  found: { node: RunTreeNode; parent?: RunTreeNode | undefined },
): Promise<Pick<ModelRequestView, 'source' | 'items'>> {
  const window = facts.window;
  if (!window) {
    const input = found.parent
      ? await subRunInput(runtime, key, found.parent.runId, found.node.runId)
      : '';
    const earlier = journal.filter((e) => e.step < step).sort((a, b) => a.step - b.step);
    return {
      source: { kind: 'sub-run' },
      items: [
        { item: { type: 'message', role: 'user', content: input } },
        ...earlier.flatMap(itemsOfStep).map((item) => ({ item })),
      ],
    };
  }
  const { historyLength } = await runtime.getSessionInfo(key);
  const one = async (at: number | undefined, role: SentItem['role']): Promise<SentItem[]> => {
    if (at === undefined) return [];
    const [item] = await runtime.store.readHistory(key, at, at + 1);
    return item ? [{ position: at, role, item }] : [];
  };
  const range = await runtime.store.readHistory(key, window.start, window.end);
  return {
    source: {
      kind: 'history',
      start: window.start,
      end: window.end,
      from: window.from ?? 0,
      ...(window.summary === undefined ? {} : { summary: window.summary }),
      ...(window.pinned === undefined ? {} : { pinned: window.pinned }),
      historyLength,
    },
    items: [
      ...(await one(window.summary, 'summary')),
      ...(await one(window.pinned, 'pinned')),
      ...range.flatMap((item, i) =>
        item.type === 'summary' ? [] : [{ position: window.start + i, item }],
      ),
    ],
  };
}

/**
 * The items with the recalled memories' message where the request had it (`recalledAt`), made
 * as recall makes it from the journaled memories: the items are what the model was sent.
 */
function withRecalled(
  sent: Pick<ModelRequestView, 'source' | 'items'>,
  memory: RequestMemoryFacts | undefined,
): Pick<ModelRequestView, 'source' | 'items'> {
  const recalled = memory?.recalled;
  if (!recalled?.length || !sent.items) return sent;
  const items = [...sent.items];
  const at = Math.min(Math.max(memory?.recalledAt ?? items.length, 0), items.length);
  items.splice(at, 0, { role: 'memory', item: recallMessage(recalled) });
  return { ...sent, items };
}

/** A sub-agent run's first user message: the input its parent's call gave it. */
async function subRunInput(
  runtime: SessionRuntime,
  key: SessionKey,
  parentId: string,
  runId: string,
): Promise<string> {
  for (const e of await readCheckedJournal(runtime.store, key, parentId)) {
    if (e.kind !== 'model') continue;
    const call = (e.output as ModelStepOutput).toolCalls.find((c) => c.subRun?.runId === runId);
    if (call?.subRun) return call.subRun.input;
  }
  return '';
}

/**
 * The tools a request offered, by their journaled names; each one's description and parameter
 * schema from the agent's definition when the inspector was given that agent (its `agents`),
 * found through sub-agent tools and handoffs too; a handoff's tool as `handoffTool` makes it.
 */
function toolsOffered(
  roots: Agent<unknown>[],
  facts: ModelRequestFacts,
): ModelRequestView['tools'] {
  const options = definitionOf(roots, facts.agent);
  const handoffs = (options?.handoffs ?? []).map((h) => handoffTool(h));
  return facts.tools.map((name) => {
    const t = [...(options?.tools ?? []), ...handoffs].find((x) => x.name === name);
    if (!t) return { name };
    const spec = toToolSpec(t);
    return { name, description: spec.description, parameters: spec.parameters };
  });
}

function definitionOf(roots: Agent<unknown>[], name: string): AgentOptions<unknown> | undefined {
  const seen = new Set<AgentOptions<unknown>>();
  const visit = (options: AgentOptions<unknown> | undefined): AgentOptions<unknown> | undefined => {
    if (!options || seen.has(options)) return undefined;
    seen.add(options);
    if (options.name === name) return options;
    for (const t of options.tools ?? []) {
      const linked = (t.subAgent?.agent ?? t.handoff?.agent) as
        { options?: AgentOptions<unknown> } | undefined;
      const hit = visit(linked?.options);
      if (hit) return hit;
    }
    for (const h of options.handoffs ?? []) {
      const hit = visit((h as { options?: AgentOptions<unknown> }).options);
      if (hit) return hit;
    }
    return undefined;
  };
  for (const root of roots) {
    const hit = visit(root.options);
    if (hit) return hit;
  }
  return undefined;
}
