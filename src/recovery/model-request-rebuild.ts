import { itemsOfStep } from '../actors/session-log.js';
import type { AgentOptions } from '../definition/agent-options.js';
import { handoffTool } from '../definition/handoff-tool.js';
import type { Item } from '../items/item.js';
import { summaryMessage } from '../items/summary-message.js';
import type {
  ModelStepOutput,
  ModelRequestFacts,
  RequestMemoryFacts,
} from '../machines/step-actor-io.js';
import { recallMessage } from '../memory/recall.js';
import type { ModelRequest, ToolSpec } from '../models/model.js';
import type { JournalEntry, SessionKey, SessionStore } from '../persistence/session-store.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';
import { toToolSpec } from '../tools/tool.js';
import { DefinitionCache } from '../definition/definition-cache.js';

/**
 * "What the model saw", rebuilt from a model step's journaled `ModelRequestFacts`: the items at
 * the history positions it journaled (or a sub-agent run's own conversation), the memories it
 * recalled, the tools it offered (their specs from the agent's definition) and its settings.
 * Shared by the inspector (its view of a request) and evals (a step row's exact request).
 */

/** One item the request carried, with where it is in the history (absent: not in it). */
export interface SentItem {
  position?: number | undefined;
  /**
   * `summary`: a summary of the items before `upTo` (the stored summary item: the model got it
   * as `summaryMessage` makes it); `pinned`: the newest user message kept in front of the
   * window; `memory`: the memories recalled from other sessions.
   */
  role?: 'summary' | 'pinned' | 'memory' | undefined;
  item: Item;
}

/** Where a request's items came from: history positions, or a sub-agent run's conversation. */
export type SentSource =
  | {
      kind: 'history';
      start: number;
      end: number;
      from: number;
      summary?: number | undefined;
      pinned?: number | undefined;
    }
  | { kind: 'sub-run' };

/**
 * The items model step `step` of run `runId` sent, in order, from its facts: for a session run,
 * the history window (summary, pinned message, the range without summaries); for a sub-agent
 * run (`parentRunId` set), its input and the items of its earlier steps; the recalled
 * memories' message where recall put it.
 */
export async function sentItems(
  store: SessionStore,
  key: SessionKey,
  request: {
    facts: ModelRequestFacts;
    journal: readonly JournalEntry[];
    step: number;
    runId: string;
  },
  parentRunId: string | undefined,
): Promise<{ source: SentSource; items: SentItem[] }> {
  const { facts, journal, step, runId } = request;
  const window = facts.window;
  if (!window) {
    const input = parentRunId ? await subRunInput(store, key, parentRunId, runId) : '';
    const earlier = journal.filter((e) => e.step < step).sort((a, b) => a.step - b.step);
    return withRecalled(
      {
        source: { kind: 'sub-run' as const },
        items: [
          { item: { type: 'message', role: 'user', content: input } },
          ...earlier.flatMap(itemsOfStep).map((item) => ({ item })),
        ],
      },
      facts.memory,
    );
  }
  const one = async (at: number | undefined, role: SentItem['role']): Promise<SentItem[]> => {
    if (at === undefined) return [];
    const [item] = await store.readHistory(key, at, at + 1);
    return item ? [{ position: at, role, item }] : [];
  };
  const range = await store.readHistory(key, window.start, window.end);
  return withRecalled(
    {
      source: {
        kind: 'history' as const,
        start: window.start,
        end: window.end,
        from: window.from ?? 0,
        ...(window.summary === undefined ? {} : { summary: window.summary }),
        ...(window.pinned === undefined ? {} : { pinned: window.pinned }),
      },
      items: [
        ...(await one(window.summary, 'summary')),
        ...(await one(window.pinned, 'pinned')),
        ...range.flatMap((item, i) =>
          item.type === 'summary' ? [] : [{ position: window.start + i, item }],
        ),
      ],
    },
    facts.memory,
  );
}

/**
 * The items with the recalled memories' message where the request had it (`recalledAt`), made
 * as recall makes it from the journaled memories: the items are what the model was sent.
 */
function withRecalled<T extends { items: SentItem[] }>(
  sent: T,
  memory: RequestMemoryFacts | undefined,
): T {
  const recalled = memory?.recalled;
  if (!recalled?.length) return sent;
  const items = [...sent.items];
  const at = Math.min(Math.max(memory?.recalledAt ?? items.length, 0), items.length);
  items.splice(at, 0, { role: 'memory', item: recallMessage(recalled) });
  return { ...sent, items };
}

/** A sub-agent run's first user message: the input its parent's call gave it. */
async function subRunInput(
  store: SessionStore,
  key: SessionKey,
  parentId: string,
  runId: string,
): Promise<string> {
  for (const e of await readCheckedJournal(store, key, parentId)) {
    if (e.kind !== 'model') continue;
    const call = (e.output as ModelStepOutput).toolCalls.find((c) => c.subRun?.runId === runId);
    if (call?.subRun) return call.subRun.input;
  }
  return '';
}

/**
 * The parent of each sub-agent run under `topRunId` (by run id), read from the journals of the
 * run and its sub-agent runs (a call's `subRun`).
 */
export async function runParents(
  store: SessionStore,
  key: SessionKey,
  topRunId: string,
): Promise<Map<string, string>> {
  const parents = new Map<string, string>();
  const visit = async (runId: string): Promise<void> => {
    for (const e of await readCheckedJournal(store, key, runId)) {
      if (e.kind !== 'model') continue;
      for (const c of (e.output as ModelStepOutput).toolCalls) {
        if (!c.subRun || parents.has(c.subRun.runId)) continue;
        parents.set(c.subRun.runId, runId);
        await visit(c.subRun.runId);
      }
    }
  };
  await visit(topRunId);
  return parents;
}

/**
 * Every agent in the tree of `roots` (their sub-agent tools' and handoffs' agents, depth
 * first, each once), by its options.
 */
export function agentsInTree(
  roots: readonly { options: AgentOptions<unknown> }[],
): AgentOptions<unknown>[] {
  const seen = new Set<AgentOptions<unknown>>();
  const visit = (options: AgentOptions<unknown> | undefined): void => {
    if (!options || seen.has(options)) return;
    seen.add(options);
    for (const t of options.tools ?? []) {
      const linked = (t.subAgent?.agent ?? t.handoff?.agent) as
        { options?: AgentOptions<unknown> } | undefined;
      visit(linked?.options);
    }
    for (const h of options.handoffs ?? [])
      visit((h as { options?: AgentOptions<unknown> }).options);
  };
  for (const root of roots) visit(root.options);
  return [...seen];
}

/** The agent named `name` in the tree of `roots` (see `agentsInTree`), its options. */
export function definitionOf(
  roots: readonly { options: AgentOptions<unknown> }[],
  name: string,
): AgentOptions<unknown> | undefined {
  return agentsInTree(roots).find((options) => options.name === name);
}

/** The names of the tools an agent offers: its tools and its handoffs' tools. */
export function toolNamesOf(options: AgentOptions<unknown>): string[] {
  return [
    ...(options.tools ?? []).map((t) => t.name),
    ...(options.handoffs ?? []).map((h) => handoffTool(h).name),
  ];
}

/**
 * The spec of each tool a request offered, by its journaled name, from the agent's definition
 * (its tools, and its handoffs' tools as `handoffTool` makes them); `undefined` for a name the
 * definition lacks (a toolkit's tool, or a tool since removed).
 */
export function toolSpecsOffered(
  options: AgentOptions<unknown> | undefined,
  names: readonly string[],
): (ToolSpec | undefined)[] {
  const handoffs = (options?.handoffs ?? []).map((h) => handoffTool(h));
  const all = [...(options?.tools ?? []), ...handoffs];
  return names.map((name) => {
    const t = all.find((x) => x.name === name);
    return t ? toToolSpec(t) : undefined;
  });
}

/** The JSON Schema of an agent's `outputType`, as its binding makes it. */
function outputSchemaOf(options: AgentOptions<unknown>): Record<string, unknown> | undefined {
  const type = options.outputType;
  return type ? new DefinitionCache().outputSchema(options.name, type) : undefined;
}

/**
 * The exact `ModelRequest` a model step sent, from its facts and its rebuilt items (see
 * `sentItems`), with the tools' specs and output schema from `options` (the agent that made
 * the step): the fields in the order the model step writes them, so that
 * `JSON.stringify` of it is the string of what was sent. The names of offered tools the
 * definition lacks are in `missing` (the request then leaves them out), for the caller to report.
 */
export function exactModelRequest(
  facts: ModelRequestFacts,
  items: readonly SentItem[],
  options: AgentOptions<unknown>,
): { request: ModelRequest; missing: string[] } {
  const specs = toolSpecsOffered(options, facts.tools);
  const missing = facts.tools.filter((_, i) => specs[i] === undefined);
  const outputSchema = outputSchemaOf(options);
  const request: ModelRequest = {
    ...(facts.instructions === undefined ? {} : { instructions: facts.instructions }),
    items: items.map(({ role, item }) =>
      role === 'summary' && item.type === 'summary' ? summaryMessage(item) : item,
    ),
    tools: specs.filter((s): s is ToolSpec => s !== undefined),
    ...(outputSchema ? { outputSchema } : {}),
    ...(facts.model === undefined ? {} : { model: facts.model }),
    ...(facts.maxOutputTokens === undefined ? {} : { maxOutputTokens: facts.maxOutputTokens }),
    ...(facts.settings ? { settings: facts.settings } : {}),
  };
  return { request, missing };
}
