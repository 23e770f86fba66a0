import type { Agent } from '../agent/agent.js';
import { RunNotFoundError } from '../errors/replay-errors.js';
import type {
  ModelRequestFacts,
  ModelStepOutput,
  RequestMemoryFacts,
} from '../machines/step-actor-io.js';
import type { RunUsage } from '../machines/run-usage.js';
import type { SessionKey } from '../persistence/session-store.js';
import {
  definitionOf,
  sentItems,
  toolSpecsOffered,
  type SentItem,
  type SentSource,
} from '../recovery/model-request-rebuild.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { HttpError } from './http-io.js';
import type { InspectorAgents } from './inspector-agents.js';
import { runDetail, type RunTreeNode } from './inspector-reads.js';

export type { SentItem };

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
    | (Extract<SentSource, { kind: 'history' }> & { historyLength: number })
    | Extract<SentSource, { kind: 'sub-run' }>
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
    ...(await itemsSent(runtime, key, { facts, journal, step, runId }, found.parent?.runId)),
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

/** The items sent (see `sentItems`), and for the history, its length now. */
async function itemsSent(
  runtime: SessionRuntime,
  key: SessionKey,
  request: Parameters<typeof sentItems>[2],
  parentRunId: string | undefined,
): Promise<Pick<ModelRequestView, 'source' | 'items'>> {
  const sent = await sentItems(runtime.store, key, request, parentRunId);
  if (sent.source.kind === 'sub-run') return { source: sent.source, items: sent.items };
  const { historyLength } = await runtime.getSessionInfo(key);
  return { source: { ...sent.source, historyLength }, items: sent.items };
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

/**
 * The tools a request offered, by their journaled names; each one's description and parameter
 * schema from the agent's definition when the inspector was given that agent (its `agents`),
 * found through sub-agent tools and handoffs too; a handoff's tool as `handoffTool` makes it.
 */
function toolsOffered(
  roots: Agent<unknown>[],
  facts: ModelRequestFacts,
): ModelRequestView['tools'] {
  const specs = toolSpecsOffered(definitionOf(roots, facts.agent), facts.tools);
  return facts.tools.map((name, i) => {
    const spec = specs[i];
    return spec ? { name, description: spec.description, parameters: spec.parameters } : { name };
  });
}
