import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent, Runner } from '@openai/agents';
import { benchPeerAgent, benchRunner, userMessage } from './bench-agent.js';
import { openPeerStore, type PeerMode, type PeerStore } from './peer-store.js';

/** One message to a conversation as a durable app sends it: run with the session, save the state. */
export async function sendMessage(
  runner: Runner,
  agent: Agent,
  store: PeerStore,
  sessionId: string,
  i: number,
): Promise<void> {
  const result = await runner.run(agent, userMessage(i), {
    session: store.session(sessionId),
    maxTurns: 10,
  });
  // A function call, its result and the answer: two model calls and one tool call.
  if (result.newItems.length !== 3 || typeof result.finalOutput !== 'string') {
    throw new Error(`${sessionId} message ${i}: ${result.newItems.length} new item(s)`);
  }
  await store.saveState(sessionId, result.state.toString());
}

/** A temp folder for a database; `cleanup` removes it. */
export function tempFolder(): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), 'agentstate-peer-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** The peak RSS while a workload runs, sampled every 10 ms as agentstate's bench does. */
function rssSampler(): { start: number; stop(): number } {
  const start = process.memoryUsage.rss();
  let peak = start;
  const sample = (): void => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, 10);
  timer.unref();
  return {
    start,
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** One run of W1 on the peer: one conversation of `messages` messages, one after the other. */
export interface PeerW1Run {
  messages: number;
  totalMs: number;
  firstMsPerMessage: number;
  lastMsPerMessage: number;
  /** RunState characters saved per message, in the last 10%. */
  lastStateChars: number;
  peakRssBytes: number;
}

/** W1: `messages` messages to one session; the database stays at `keepAt` if given. */
export async function peerW1(
  mode: PeerMode,
  messages: number,
  sessionId: string,
  keepAt?: string,
): Promise<PeerW1Run> {
  const dir = tempFolder();
  const store = await openPeerStore(mode, keepAt ?? join(dir.path, 'peer-db'));
  try {
    const runner = benchRunner();
    const agent = benchPeerAgent();
    const times: number[] = [];
    const chars: number[] = [];
    const rss = rssSampler();
    const start = performance.now();
    for (let i = 0; i < messages; i++) {
      const before = store.stateChars;
      const t0 = performance.now();
      await sendMessage(runner, agent, store, sessionId, i);
      times.push(performance.now() - t0);
      chars.push(store.stateChars - before);
    }
    const totalMs = performance.now() - start;
    const n = Math.max(1, Math.round(messages / 10));
    return {
      messages,
      totalMs,
      firstMsPerMessage: mean(times.slice(0, n)),
      lastMsPerMessage: mean(times.slice(-n)),
      lastStateChars: mean(chars.slice(-n)),
      peakRssBytes: rss.stop(),
    };
  } finally {
    await store.close();
    dir.cleanup();
  }
}

/** One run of W2 on the peer. */
export interface PeerW2Run {
  sessions: number;
  messagesPerSession: number;
  concurrency: number;
  messages: number;
  totalMs: number;
  messagesPerSecond: number;
  peakRssBytes: number;
  startRssBytes: number;
}

/**
 * W2: `concurrency` workers each take the next conversation and send its messages in
 * sequence, until every conversation has had its messages (agentstate's `runW2`, on the peer).
 */
export async function peerW2(
  mode: PeerMode,
  sessions: number,
  perSession: number,
  concurrency: number,
): Promise<PeerW2Run> {
  const dir = tempFolder();
  const store = await openPeerStore(mode, join(dir.path, 'peer-db'));
  try {
    const runner = benchRunner();
    const agent = benchPeerAgent();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < sessions) {
        const s = next++;
        for (let m = 0; m < perSession; m++) {
          await sendMessage(runner, agent, store, `conversation-${s}`, m);
        }
      }
    };
    const rss = rssSampler();
    const start = performance.now();
    await Promise.all(Array.from({ length: Math.min(concurrency, sessions) }, worker));
    const totalMs = performance.now() - start;
    const messages = sessions * perSession;
    return {
      sessions,
      messagesPerSession: perSession,
      concurrency,
      messages,
      totalMs,
      messagesPerSecond: (messages * 1000) / totalMs,
      peakRssBytes: rss.stop(),
      startRssBytes: rss.start,
    };
  } finally {
    await store.close();
    dir.cleanup();
  }
}

/**
 * Warms V8 up before anything is measured, as agentstate's `warmUp` does, in a store of its
 * own of the same mode: one conversation of `messages` messages, then as many over 20
 * conversations, 10 in flight.
 */
export async function peerWarmUp(mode: PeerMode, messages: number): Promise<void> {
  const dir = tempFolder();
  const store = await openPeerStore(mode, join(dir.path, 'warm-db'));
  try {
    const runner = benchRunner();
    const agent = benchPeerAgent();
    for (let i = 0; i < messages; i++) await sendMessage(runner, agent, store, 'warm-long', i);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < messages) {
        const i = next++;
        await sendMessage(runner, agent, store, `warm-${i % 20}`, i);
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
  } finally {
    await store.close();
    dir.cleanup();
  }
}
