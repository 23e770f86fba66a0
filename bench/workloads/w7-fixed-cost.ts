import { join } from 'node:path';
import { Agent, LevelSessionStore } from '../../src/index.js';
import type { ModelRequest } from '../../src/models/model.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { add, benchAgent, tempDir, timeMessages, userMessage } from '../fixtures.js';
import { headTail, mean, median, now } from '../stats.js';

/**
 * One run of the per-message fixed cost: what a message to a session that was just used costs
 * against the same durable steps in the middle of one long run, where nothing is loaded,
 * restored or closed between them. A message writes one batch per durable step (its input,
 * two model calls, one tool call); in the long run each turn writes one per model call and
 * one per tool call. The ratio is the message's time over the time its batches take in the
 * middle of the long run: what every action adds on top of its steps.
 *
 * Both sides are medians, not means: a message takes milliseconds, and a shared virtual
 * machine that stops the process for a few hundred milliseconds (the bench measures those
 * pauses) moves the mean of twenty messages by ten times what the runtime does. The means
 * are kept beside them (`meanRatio`): what a run pays on average, pauses included.
 */
export interface FixedCostRun {
  messages: number;
  turns: number;
  /** Median time per message over the last 10% of a conversation of `messages` messages. */
  messageMs: number;
  /** Batches (durable steps) each message writes. */
  batchesPerMessage: number;
  /** Median time per turn over the middle 80% of the long run, over its batches per turn. */
  stepMs: number;
  /** `messageMs` over `batchesPerMessage` steps in the middle of the long run. */
  ratio: number;
  /** The same ratio of means: mean time per message over `batchesPerMessage` mean steps. */
  meanRatio: number;
}

export interface FixedCostOptions {
  /** Messages sent to one session, one after the other. @default 200 */
  messages?: number;
  /** Turns (a model call and a tool call each) of the long run. @default 200 */
  turns?: number;
  /** The agent the messages go to. @default benchAgent() */
  agent?: Agent;
}

/** Tool results of the current run: the items after the last user message. */
function toolResultsSinceUser(request: ModelRequest): number {
  let n = 0;
  for (let i = request.items.length - 1; i >= 0; i--) {
    const item = request.items[i]!;
    if (item.type === 'message' && item.role === 'user') break;
    if (item.type === 'tool_result') n++;
  }
  return n;
}

/** A model that calls `add` for `turns` turns, then answers; notes when each call starts. */
class LongRunModel extends ScriptedModel {
  readonly callTimes: number[] = [];

  constructor(turns: number) {
    super(
      (request: ModelRequest, callIndex: number): ScriptedResponse => {
        this.callTimes.push(now());
        return toolResultsSinceUser(request) < turns
          ? { toolCalls: [{ name: 'add', arguments: { a: callIndex, b: 2 } }] }
          : { text: 'Done.' };
      },
      { name: 'bench-long-run', recordCalls: false },
    );
  }
}

/** Times of the turns over the middle 80% of the long run (between its model calls). */
function turnTimesOf(callTimes: readonly number[]): number[] {
  const cut = Math.round(callTimes.length * 0.1);
  const middle = callTimes.slice(cut, callTimes.length - cut);
  const turns: number[] = [];
  for (let i = 1; i < middle.length; i++) turns.push(middle[i]! - middle[i - 1]!);
  return turns;
}

/**
 * The per-message fixed cost: `messages` messages to one session (each an `agent.run`, so
 * each loads, restores and closes the session) against one run of `turns` tool-call turns.
 */
export async function runFixedCost(options: FixedCostOptions = {}): Promise<FixedCostRun> {
  const messages = options.messages ?? 200;
  const turns = options.turns ?? 200;
  const dir = await tempDir('agentstate-fixed-cost-');
  const store = await LevelSessionStore.open({ path: join(dir.path, 'db') });
  try {
    const agent = options.agent ?? benchAgent();
    const series = await timeMessages(store, messages, async (i) => {
      const run = await agent.run(userMessage(i), { sessionId: 'just-used', userId: 'u', store });
      if (run.turns !== 2) throw new Error(`message ${i} took ${run.turns} turn(s), expected 2`);
    });
    const batchesPerMessage = Math.round(store.stats().batches / messages);
    const model = new LongRunModel(turns);
    const long = new Agent({ name: 'bench', model, tools: [add], maxTurns: turns + 1 });
    const before = store.stats().batches;
    const run = await long.run('Add until told to stop.', {
      sessionId: 'long-run',
      userId: 'u',
      store,
    });
    if (run.turns !== turns + 1) throw new Error(`the long run took ${run.turns} turn(s)`);
    const batchesPerTurn = (store.stats().batches - before) / (turns + 1);
    const lastMessages = headTail(series.times).tail;
    const turnTimes = turnTimesOf(model.callTimes);
    const messageMs = median(lastMessages);
    const stepMs = median(turnTimes) / batchesPerTurn;
    const ratio = messageMs / (batchesPerMessage * stepMs);
    const meanStepMs = mean(turnTimes) / batchesPerTurn;
    const meanRatio = mean(lastMessages) / (batchesPerMessage * meanStepMs);
    return { messages, turns, messageMs, batchesPerMessage, stepMs, ratio, meanRatio };
  } finally {
    await store.close();
    await dir.cleanup();
  }
}
