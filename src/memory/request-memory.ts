import type { HistorySource } from '../context-window/context-window.js';
import type { RunContext } from '../core/run-context.js';
import type { Item } from '../items/item.js';
import type { RequestMemoryFacts } from '../machines/step-actor-io.js';
import { addUsage, type RunUsage } from '../machines/run-usage.js';
import { WORKING_MEMORY_TOOL } from './memory-tools.js';
import { recallInto } from './recall.js';
import type { RuntimeMemory } from './runtime-memory.js';
import { workingMemorySection } from './working-memory.js';

/** A session run's model request before memory adds to it. */
export interface RequestBeforeMemory {
  context: RunContext;
  sessionId: string;
  instructions: string | undefined;
  items: Item[];
  history: HistorySource;
  /** Where the model starts reading the history. */
  from: number;
  now: number;
  signal: AbortSignal;
}

/**
 * What memory adds to a session run's model request: the working memory as a section of the
 * instructions, and the recalled memories among the items (see `recallInto`), with the facts
 * the model step journals ("what the model saw" shows them, with their scores).
 */
export async function withMemory(
  memory: RuntimeMemory,
  request: RequestBeforeMemory,
): Promise<{ instructions: string | undefined; items: Item[]; facts: RequestMemoryFacts }> {
  const { options } = memory;
  const scoped = memory.forRun(request.context);
  const facts: RequestMemoryFacts = {};
  let instructions = request.instructions;
  let items = request.items;
  if (options.working) {
    const record = await scoped.workingMemory();
    const section = workingMemorySection(record, options.working, WORKING_MEMORY_TOOL);
    instructions = instructions ? `${instructions}\n\n${section}` : section;
    facts.workingMemory = { version: record?.version ?? 0 };
  }
  if (options.recall) {
    const recalled = await recallInto(
      scoped,
      options.recall,
      {
        items,
        history: request.history,
        from: request.from,
        sessionId: request.sessionId,
        now: request.now,
      },
      memory.cacheOf(request.sessionId),
      request.signal,
    );
    items = recalled.items;
    if (recalled.recalled.length) {
      facts.recalled = recalled.recalled;
      facts.recalledAt = recalled.recalledAt;
    }
  }
  return { instructions, items, facts };
}

/** The facts as journaled: recalled texts scrubbed by the agent's `redact`, like its instructions. */
export function redactedFacts(
  facts: RequestMemoryFacts,
  redact: ((text: string) => string) | undefined,
): RequestMemoryFacts {
  if (!redact || !facts.recalled) return facts;
  return { ...facts, recalled: facts.recalled.map((m) => ({ ...m, text: redact(m.text) })) };
}

/**
 * A model step's usage with what embedding cost for its run since the last step (recall's
 * query, the `remember` tool's facts): its tokens count as input tokens, its cost as cost (an
 * embedder without a price adds none). The facts say how much of it was embedding.
 */
export function withEmbeddingCost(
  memory: RuntimeMemory,
  runId: string,
  usage: RunUsage,
  facts: RequestMemoryFacts,
): RunUsage {
  const cost = memory.takeCost(runId);
  if (!cost) return usage;
  facts.embedding = {
    model: cost.model,
    inputTokens: cost.inputTokens,
    ...(cost.costUsd === undefined ? {} : { costUsd: cost.costUsd }),
  };
  return addUsage(usage, {
    inputTokens: cost.inputTokens,
    outputTokens: 0,
    cachedTokens: 0,
    costUsd: cost.costUsd ?? 0,
  });
}
