import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  tool,
  type Durability,
  type SessionKey,
  type SessionStore,
} from '../src/index.js';
import type { KvOp } from '../src/persistence/kv/backends/kv-backend.js';
import { ScriptedModel, type ScriptedResponse } from '../src/testing.js';
import type { ModelRequest } from '../src/models/model.js';
import { BatchSpill } from './batch-spill.js';
import { headTail, mean, now } from './stats.js';

/** The tool every benchmark message calls once. */
export const add = tool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

/**
 * The benchmark script: a user message last → call `add` once; otherwise (the tool result is
 * last) → answer with text. So every message makes two model calls and one tool call.
 */
export function benchScript(request: ModelRequest, callIndex: number): ScriptedResponse {
  const last = request.items[request.items.length - 1];
  if (last?.type === 'message' && last.role === 'user') {
    return { toolCalls: [{ name: 'add', arguments: { a: callIndex, b: 2 } }] };
  }
  return { text: `The sum is ${callIndex + 2}.` };
}

/** A ScriptedModel at zero latency following {@link benchScript}; `calls` is not kept. */
export class BenchModel extends ScriptedModel {
  constructor() {
    super(benchScript, { name: 'bench-model', recordCalls: false });
  }
}

/** A fresh agent with the bench model and the `add` tool (no store: pass one per run). */
export function benchAgent(
  model: ScriptedModel = new BenchModel(),
  durability?: Durability,
): Agent {
  return new Agent({
    name: 'bench',
    model,
    tools: [add],
    maxTurns: 10,
    ...(durability ? { durability } : {}),
  });
}

/** The session W1 writes and W3 resumes. */
export const W1_SESSION = { sessionId: 'long-conversation', userId: 'bench-user' };

/** The text of the i-th user message of a benchmark conversation. */
export const userMessage = (i: number): string => `Message ${i}: what is ${i} + 2?`;

/**
 * Writes a session of `messages` messages on `store` with the bench agent (each message calls
 * `add` once, then answers: four history items) and returns that agent: the long session the
 * inspector and attach parts read.
 */
export async function writeLongSession(
  store: SessionStore,
  key: SessionKey,
  messages: number,
): Promise<Agent> {
  const agent = new Agent({ name: 'bench', model: new BenchModel(), tools: [add], store });
  for (let i = 0; i < messages; i++) await agent.run(userMessage(i), key);
  return agent;
}

/** A temp folder; `cleanup` removes it. */
export async function tempDir(
  prefix = 'agentstate-bench-',
): Promise<{ path: string; cleanup(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** Copies a (closed) LevelDB folder, so each run of a workload starts from the same data. */
export async function copyDir(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true });
}

/** A LevelDB store whose every write batch is also recorded, for the floor replay. */
export interface RecordedStore {
  store: LevelSessionStore;
  /**
   * Every batch the store wrote, in order, filled in when the store is closed: until then they
   * wait in a temp file (`BatchSpill`), so the workload's memory is the runtime's own.
   */
  batches: KvOp[][];
}

/** Opens a LevelSessionStore at `path` and records the ops of every batch it writes. */
export async function openRecordedStore(path: string): Promise<RecordedStore> {
  const store = await LevelSessionStore.open({ path });
  const batches: KvOp[][] = [];
  const spill = new BatchSpill(`${path}.batches`);
  const backend = store.backend;
  const write = backend.write.bind(backend);
  backend.write = (ops: KvOp[]) => {
    spill.append(ops);
    return write(ops);
  };
  const close = store.close.bind(store);
  let spilled = true;
  store.close = async () => {
    await close();
    if (spilled) for (const ops of spill.readAll()) batches.push(ops);
    spilled = false;
  };
  return { store, batches };
}

/** Logical bytes stored: the utf8 length of every key and value in the database. */
export async function storedBytes(store: LevelSessionStore): Promise<number> {
  let bytes = 0;
  for await (const [key, value] of store.backend.iterate({ gte: '', lt: '\uffff' })) {
    bytes += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  return bytes;
}

/** Time and bytes written per message of a sequence of messages to one store. */
export interface MessageSeries {
  totalMs: number;
  times: number[];
  bytes: number[];
}

/** Mean time and bytes per message over the first and last 10% of a series (flatness). */
export interface PerMessageFigures {
  firstMsPerMessage: number;
  lastMsPerMessage: number;
  firstBytesPerMessage: number;
  lastBytesPerMessage: number;
}

/** The first and last 10% of `series`, averaged: how flat a conversation's cost stays. */
export function perMessageFigures(
  series: Pick<MessageSeries, 'times' | 'bytes'>,
): PerMessageFigures {
  const t = headTail(series.times);
  const b = headTail(series.bytes);
  return {
    firstMsPerMessage: mean(t.head),
    lastMsPerMessage: mean(t.tail),
    firstBytesPerMessage: mean(b.head),
    lastBytesPerMessage: mean(b.tail),
  };
}

/** Sends `messages` messages one after the other with `send`, timing each and its bytes. */
export async function timeMessages(
  store: Pick<SessionStore, 'stats'>,
  messages: number,
  send: (i: number) => Promise<void>,
): Promise<MessageSeries> {
  const times: number[] = [];
  const bytes: number[] = [];
  const start = now();
  for (let i = 0; i < messages; i++) {
    const before = store.stats().bytesWritten;
    const t0 = now();
    await send(i);
    times.push(now() - t0);
    bytes.push(store.stats().bytesWritten - before);
  }
  return { totalMs: now() - start, times, bytes };
}
