import { z } from 'zod';
import { contentText, type Item } from '../../src/items/item.js';
import type { ModelRequest } from '../../src/models/model.js';
import type { KvSessionStore } from '../../src/persistence/kv/kv-session-store.js';
import { recordChangesKey, recordKey } from '../../src/persistence/session-keys.js';
import { SessionRecordCodec } from '../../src/persistence/session-record-codec.js';
import type { SessionKey } from '../../src/persistence/session-store.js';
import { tool } from '../../src/tools/tool.js';
import { Agent } from '../../src/agent/agent.js';
import type { TempStores } from './temp-store.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';

export const alice = (sessionId: string): SessionKey => ({ sessionId, userId: 'alice' });
export const bob = (sessionId: string): SessionKey => ({ sessionId, userId: 'bob' });

/** Text contents of the message items (user and assistant), oldest first. */
export function texts(items: readonly Item[]): string[] {
  return items.flatMap((item) => (item.type === 'message' ? [contentText(item.content)] : []));
}

/** The content of the last user message in a request. */
export function lastUserText(request: ModelRequest): string {
  const users = request.items.filter((i) => i.type === 'message' && i.role === 'user');
  const last = users[users.length - 1];
  return last && last.type === 'message' ? contentText(last.content) : '';
}

/**
 * A model that answers every request with `reply: <last user message>`, and answers
 * "What did I just say?" from the history it was sent (as a real model would).
 */
export function echoModel(): ScriptedModel {
  return new ScriptedModel(
    (request) => {
      const said = texts(request.items.filter((i) => i.type === 'message' && i.role === 'user'));
      const question = said[said.length - 1] ?? '';
      if (question === 'What did I just say?') {
        const previous = said[said.length - 2];
        return {
          text:
            previous === undefined ? 'You have not said anything yet.' : `You said: "${previous}"`,
        };
      }
      return { text: `reply: ${question}` };
    },
    { recordCalls: true },
  );
}

/** The messages `echoModel` leaves in the history after each of `said`, in order. */
export const echoed = (...said: string[]): string[] => said.flatMap((s) => [s, `reply: ${s}`]);

/** A scripted turn calling `name` with empty arguments. */
export const callTool = (name: string): ScriptedResponse => ({
  toolCalls: [{ name, arguments: {} }],
});

/** A harmless tool the budget and approval tests call. */
export const noteTool = tool({
  name: 'note',
  description: 'Writes a note',
  parameters: z.object({}),
  execute: () => 'noted',
});

/** A tool every call of which a human must approve. */
export const dangerTool = tool({
  name: 'danger',
  description: 'Needs approval',
  parameters: z.object({}),
  needsApproval: true,
  execute: () => 'done',
});

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Every key and value in the store's backend (to prove a failed write left nothing behind). */
export async function dumpBackend(store: KvSessionStore): Promise<[string, string][]> {
  const entries: [string, string][] = [];
  for await (const entry of store.backend.iterate({ gte: '', lt: '\uffff' })) entries.push(entry);
  return entries;
}

/** Resolves after pending process warnings were delivered (Node emits them on a later tick). */
export const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A LevelDB-backed agent with the echo model and the approval-gated tool, plus its runtime. */
export async function assistantSetup(
  temps: TempStores,
  model: ScriptedModel = echoModel(),
  instructions?: string,
) {
  const { store } = await temps.open();
  const agent = new Agent({ name: 'assistant', instructions, model, store, tools: [dangerTool] });
  return { store, agent, model, runtime: agent.runtimeFor(store) };
}

/**
 * Stores a session's record whole, as a store writing only whole records (an older agentstate)
 * would have: a run in flight may be stored as a base plus its changes, and a test that edits
 * the stored envelope edits the whole record.
 */
export async function storeWhole(store: KvSessionStore, key: SessionKey): Promise<void> {
  const rKey = recordKey(key);
  const whole = new SessionRecordCodec().encode(rKey, await store.load(key));
  await store.backend.write([
    { type: 'put', key: rKey, value: whole },
    { type: 'del', key: recordChangesKey(key) },
  ]);
}
