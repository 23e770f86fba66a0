import { expect } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  tool,
  type Durability,
  type OnInterrupted,
  type ReconcileOutcome,
} from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import type { JournalEntry } from '../../src/persistence/session-store.js';
import type { TempStores } from './temp-store.js';

/**
 * The payment of the in-doubt tests: a scripted model that asks for `pay({ amount: 5 })` once
 * (call id `c1`), a `pay` tool that counts its charges, and a run whose store loses power while
 * the tool runs (its start saved, its result never).
 */
export const key = { sessionId: 'pay', userId: 'alice' };

/** Asks for `pay({ amount: 5 })` once, then answers with what the tool result said. */
export function payModel(): ScriptedModel {
  return new ScriptedModel((request): ScriptedResponse => {
    const result = request.items.find((i) => i.type === 'tool_result');
    if (!result) return { toolCalls: [{ name: 'pay', arguments: { amount: 5 }, callId: 'c1' }] };
    return { text: `${result.isError ? 'error' : 'ok'}: ${result.output}` };
  });
}

export interface PayOptions {
  durability?: Durability;
  idempotent?: boolean;
  onInterrupted?: OnInterrupted;
  reconcile?: () => ReconcileOutcome<string> | Promise<ReconcileOutcome<string>>;
}

/** A `pay` tool that counts its runs in `charges` and answers `charged <callId>`. */
export function payTool(charges: string[], options: PayOptions, execute?: () => Promise<void>) {
  const { durability: _durability, ...inDoubt } = options;
  return tool({
    name: 'pay',
    description: 'Charges the card',
    parameters: z.object({ amount: z.number() }),
    ...inDoubt,
    async execute(_args, { callId }) {
      charges.push(callId);
      await execute?.();
      return `charged ${callId}`;
    },
  });
}

/**
 * Runs `pay` in a first agent whose store loses power while the tool runs (its start was saved,
 * its result never is). Returns the store's folder, for a fresh agent to reopen.
 */
export async function crashWhilePaying(temps: TempStores, options: PayOptions): Promise<string> {
  const temp = await temps.open();
  await temp.store.close();
  let crashed = false;
  const store = await LevelSessionStore.open({
    path: temp.path,
    onBatchOp: () => {
      if (crashed) throw new Error('power cut');
    },
  });
  const first: string[] = [];
  const firstAgent = new Agent({
    name: 'payer',
    model: payModel(),
    store,
    durability: options.durability ?? 'step',
    tools: [
      payTool(first, options, () => {
        crashed = true; // the charge happened; nothing after it reaches the store
        return Promise.resolve();
      }),
    ],
  });
  await expect(firstAgent.run('pay 5', key)).rejects.toMatchObject({
    code: 'SESSION_SAVE_FAILED',
  });
  expect(first).toEqual(['c1']);
  await store.close();
  return temp.path;
}

/** A fresh agent over the reopened store whose `pay` follows `options`, with its charges. */
export async function reopenedPayer(temps: TempStores, path: string, options: PayOptions) {
  const store = await LevelSessionStore.open({ path });
  temps.defer(() => store.close());
  const charges: string[] = [];
  const agent = new Agent({
    name: 'payer',
    model: payModel(),
    store,
    durability: options.durability ?? 'step',
    tools: [payTool(charges, options)],
  });
  /** The call's journal entry of run `runId`. */
  const entry = async (runId: string): Promise<JournalEntry | undefined> =>
    (await store.readRunJournal(key, runId)).find((e) => e.kind === 'tool');
  return { agent, store, charges, entry };
}
