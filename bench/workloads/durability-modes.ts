import type { Durability } from '../../src/index.js';
import { benchAgent, BenchModel } from '../fixtures.js';
import { rowsOf, type Row } from '../table.js';
import { runW1, type W1Run } from './w1-long-conversation.js';
import { runW2, type W2Run } from './w2-many-conversations.js';

/** The price of durability: W1 and W2 (and W2 on the memory store) in each mode. */
export const BENCH_MODES: readonly Durability[] = ['step', 'tools', 'run'];

/** One round of every mode, run one after the other in the same time window. */
export interface ModeRound {
  mode: Durability;
  w1: W1Run;
  w2: W2Run;
  /** W2 on a `MemorySessionStore`: no disk; the floor is the bare XState runs alone. */
  w2Memory: W2Run;
}

export interface ModeSizes {
  /** W1's conversation length. */
  messages: number;
  /** W2's sessions. */
  sessions: number;
}

/** W1, W2 and W2 in memory for each durability mode, each with an agent of that mode. */
export async function runDurabilityModes(
  sizes: ModeSizes,
  log: (message: string) => void,
): Promise<ModeRound[]> {
  const rounds: ModeRound[] = [];
  for (const mode of BENCH_MODES) {
    log(
      `durability '${mode}': W1 T=${sizes.messages}, W2 ${sizes.sessions} sessions (LevelDB, memory)`,
    );
    const agent = () => benchAgent(new BenchModel(), mode);
    const w1 = await runW1({ messages: sizes.messages, agent: agent() });
    const w2 = await runW2({ sessions: sizes.sessions, agent: agent() });
    const w2Memory = await runW2({ sessions: sizes.sessions, agent: agent(), memory: true });
    rounds.push({ mode, w1, w2, w2Memory });
  }
  return rounds;
}

/** The rows of each mode, from the rounds of every run (`runs[run][mode]`). */
export function durabilityRows(runs: ModeRound[][]): Row[] {
  return BENCH_MODES.flatMap((mode) => {
    const rounds = runs.map((r) => r.find((round) => round.mode === mode)!);
    const { w1, w2 } = rounds[0]!;
    return [
      ...rowsOf(`durability '${mode}': W1, T = ${w1.messages}`, rounds, [
        ['time/message', 'ms', (r) => r.w1.totalMs / r.w1.messages],
        ['time / floor', 'x', (r) => r.w1.floorRatio],
        ['batches/message', 'count', (r) => r.w1.batches / r.w1.messages],
        ['bytes written/message', 'bytes', (r) => r.w1.bytesWritten / r.w1.messages],
      ]),
      ...rowsOf(`durability '${mode}': W2, ${w2.sessions} x ${w2.messagesPerSession}`, rounds, [
        ['messages/second', 'msg/s', (r) => r.w2.messagesPerSecond],
        ['floor messages/second', 'msg/s', (r) => (r.w2.messages * 1000) / r.w2.floor.totalMs],
        ['time / floor', 'x', (r) => r.w2.floorRatio],
        ['batches/message', 'count', (r) => r.w2.batches / r.w2.messages],
        ['bytes written/message', 'bytes', (r) => r.w2.bytesWritten / r.w2.messages],
        ['memory store: messages/second', 'msg/s', (r) => r.w2Memory.messagesPerSecond],
        ['memory store: time / bare XState runs', 'x', (r) => r.w2Memory.floorRatio],
      ]),
    ];
  });
}
