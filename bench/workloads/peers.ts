import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BuiltScripts } from '../built-scripts.js';
import { REPO_ROOT, runNodeScript } from '../child.js';
import { tempDir } from '../fixtures.js';
import { peerRows, type PeerPair } from '../peer-table.js';
import type { Row, Unit } from '../table.js';
import type { W1Run } from './w1-long-conversation.js';
import { runW2InChild, type W2Run } from './w2-many-conversations.js';
import { runW3, type W3Run } from './w3-resume.js';

const exec = promisify(execFile);

/** The peer's own package: `@openai/agents` and what its durable mode needs (`bench/peers/`). */
export const PEERS_DIR = fileURLToPath(new URL('../peers/', import.meta.url));

/** The agentstate child that runs W1 in a fresh process (built like W2's). */
export const W1_CHILD = 'w1-child.ts';

/** Whether `bench/peers` has its dependencies installed; the bench installs nothing itself. */
export function peersInstalled(): boolean {
  return existsSync(join(PEERS_DIR, 'node_modules', '@openai', 'agents', 'package.json'));
}

/** What to do when it is not. */
export const PEERS_NOT_INSTALLED =
  'bench/peers has no node_modules: run `npm ci --prefix bench/peers` first ' +
  '(the peer is not a dependency of the package, and the bench installs nothing itself)';

// The peer's results, as its children print them (bench/peers/workloads.ts and w3-child.ts;
// repeated here because the root project does not compile bench/peers, which needs its own
// node_modules).

/** One run of W1 on the peer. */
export interface PeerW1Run {
  messages: number;
  totalMs: number;
  firstMsPerMessage: number;
  lastMsPerMessage: number;
  lastStateChars: number;
  peakRssBytes: number;
}

/** One run of W2 on the peer. */
export interface PeerW2Run {
  messages: number;
  totalMs: number;
  messagesPerSecond: number;
  peakRssBytes: number;
  startRssBytes: number;
}

/** One run of W3 on the peer, in ms. */
export interface PeerW3Run {
  historyLength: number;
  startupMs: number;
  importsMs: number;
  appMs: number;
  openMs: number;
  messageMs: number;
  totalMs: number;
}

/**
 * Compiles bench/peers with its own tsconfig into a temp folder that links bench/peers'
 * node_modules, so the peer's children run under plain `node`, as agentstate's do.
 */
export async function buildPeerScripts(): Promise<BuiltScripts> {
  const dir = await tempDir('agentstate-peer-build-');
  try {
    const out = join(dir.path, 'out');
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await exec(process.execPath, [tsc, '-p', join(PEERS_DIR, 'tsconfig.json'), '--outDir', out]);
    await writeFile(join(dir.path, 'package.json'), '{ "type": "module" }\n');
    await symlink(join(PEERS_DIR, 'node_modules'), join(dir.path, 'node_modules'), 'dir');
    return {
      path: (script) => join(out, script.replace(/\.ts$/, '.js')),
      cleanup: () => dir.cleanup(),
    };
  } catch (error) {
    await dir.cleanup();
    throw error;
  }
}

/** The sizes of the comparison: W1's length (and W3's store), W2's conversations. */
export interface PeerSizes {
  messages: number;
  sessions: number;
  runs: number;
  warmUpMessages: number;
}

/** The peer's durable stores: SQLite (as the issue measured it) and LevelDB (agentstate's engine). */
export type PeerDurable = 'sqlite' | 'level';

const DURABLE: readonly PeerDurable[] = ['sqlite', 'level'];

const STORE_NAME: Record<PeerDurable, string> = {
  sqlite: 'SQLite session + RunState',
  level: 'LevelDB session + RunState',
};

/** One round: every figure of both sides, each in a fresh process, one after the other. */
export interface PeerRound {
  agentstate: { w1: W1Run; w1Memory: W1Run; w2: W2Run; w2RunMode: W2Run; w2Memory: W2Run };
  peer: {
    w1: Record<PeerDurable, PeerW1Run>;
    w1Memory: PeerW1Run;
    w2: Record<PeerDurable, PeerW2Run>;
    w2Memory: PeerW2Run;
  };
}

/** W3 of both sides, one run. */
export interface PeerW3Round {
  agentstate: W3Run;
  peer: Record<PeerDurable, PeerW3Run>;
}

/**
 * W1, W2 and W3 on agentstate and on `@openai/agents` side by side: `sizes.runs` rounds, each
 * figure in a fresh process (agentstate's built as `npm run build` ships it, the peer's
 * compiled), both sides warmed up alike, the sides of a figure run one right after the other.
 * Returns the figures paired, their rows (both sides and their ratios) and the raw runs.
 */
export async function runPeerComparison(
  built: BuiltScripts,
  sizes: PeerSizes,
  log: (message: string) => void,
): Promise<{ pairs: PeerPair[]; rows: Row[]; raw: { rounds: PeerRound[]; w3: PeerW3Round[] } }> {
  const peer = await buildPeerScripts();
  const work = await tempDir('agentstate-peer-work-');
  try {
    const { messages: T, sessions, warmUpMessages: warm } = sizes;
    const agentstateStore = join(work.path, 'agentstate-w1');
    const peerStore = (mode: PeerDurable) => join(work.path, `peer-w1-${mode}`);
    const w1 = (store: 'level' | 'memory', keepAt?: string) =>
      runNodeScript<W1Run>(built.path(W1_CHILD), [
        String(T),
        String(warm),
        store,
        ...(keepAt ? [keepAt] : []),
      ]);
    const peerW1 = (mode: PeerDurable | 'memory', keepAt?: string) =>
      runNodeScript<PeerW1Run>(peer.path('child.ts'), [
        'w1',
        mode,
        String(T),
        String(warm),
        ...(keepAt ? [keepAt] : []),
      ]);
    const peerW2 = (mode: PeerDurable | 'memory') =>
      runNodeScript<PeerW2Run>(peer.path('child.ts'), [
        'w2',
        mode,
        String(sessions),
        '3',
        '50',
        String(warm),
      ]);
    const rounds: PeerRound[] = [];
    for (let run = 0; run < sizes.runs; run++) {
      const of = `run ${run + 1}/${sizes.runs}`;
      const first = run === 0;
      log(`against the peer: W1 T=${T} durable (agentstate, the peer on SQLite, LevelDB), ${of}`);
      const aW1 = await w1('level', first ? agentstateStore : undefined);
      const pW1 = {
        sqlite: await peerW1('sqlite', first ? peerStore('sqlite') : undefined),
        level: await peerW1('level', first ? peerStore('level') : undefined),
      };
      log(`against the peer: W1 T=${T} in memory, ${of}`);
      const aW1Memory = await w1('memory');
      const pW1Memory = await peerW1('memory');
      log(`against the peer: W2 ${sessions} x 3 durable ('step', 'run', the peer's two), ${of}`);
      const aW2 = await runW2InChild(built, { sessions }, warm);
      const aW2RunMode = await runW2InChild(built, { sessions, durability: 'run' }, warm);
      const pW2 = { sqlite: await peerW2('sqlite'), level: await peerW2('level') };
      log(`against the peer: W2 ${sessions} x 3 in memory, ${of}`);
      const aW2Memory = await runW2InChild(built, { sessions, memory: true }, warm);
      const pW2Memory = await peerW2('memory');
      rounds.push({
        agentstate: {
          w1: aW1,
          w1Memory: aW1Memory,
          w2: aW2,
          w2RunMode: aW2RunMode,
          w2Memory: aW2Memory,
        },
        peer: { w1: pW1, w1Memory: pW1Memory, w2: pW2, w2Memory: pW2Memory },
      });
    }
    const w3: PeerW3Round[] = [];
    for (let run = 0; run < sizes.runs; run++) {
      log(`against the peer: W3 resume, ${run + 1}/${sizes.runs}`);
      const agentstate = await runW3(built, agentstateStore, T);
      const peerRun = async (mode: PeerDurable): Promise<PeerW3Run> => {
        const copy = join(work.path, `peer-w3-${mode}-${run}`);
        await cp(peerStore(mode), copy, { recursive: true });
        return runNodeScript<PeerW3Run>(peer.path('w3-child.ts'), (spawnedAt) => [
          mode,
          copy,
          String(spawnedAt),
          String(T),
        ]);
      };
      w3.push({
        agentstate,
        peer: { sqlite: await peerRun('sqlite'), level: await peerRun('level') },
      });
    }
    const pairs = peerPairs(sizes, rounds, w3);
    return { pairs, rows: peerRows(pairs), raw: { rounds, w3 } };
  } finally {
    await work.cleanup();
    await peer.cleanup();
  }
}

/** The figures compared, each with its two sides and which way is better. */
export function peerPairs(sizes: PeerSizes, rounds: PeerRound[], w3: PeerW3Round[]): PeerPair[] {
  const { messages: T, sessions } = sizes;
  const a = rounds.map((r) => r.agentstate);
  const p = rounds.map((r) => r.peer);
  const pair = (
    section: string,
    figure: string,
    unit: Unit,
    better: PeerPair['better'],
    agentstate: number[],
    peer: number[],
  ): PeerPair => ({ section, figure, unit, better, agentstate, peer });
  const durable = DURABLE.flatMap((mode) => {
    const store = STORE_NAME[mode];
    const w1 = `W1 T = ${T}, durable (agentstate: LevelDB, 'step'; peer: ${store})`;
    const w2 = `W2 ${sessions} x 3, 50 in flight, durable (agentstate: LevelDB; peer: ${store})`;
    return [
      pair(
        w1,
        'total time',
        'ms',
        'lower',
        a.map((r) => r.w1.totalMs),
        p.map((r) => r.w1[mode].totalMs),
      ),
      pair(
        w1,
        'time/message, last 10%',
        'ms',
        'lower',
        a.map((r) => r.w1.lastMsPerMessage),
        p.map((r) => r.w1[mode].lastMsPerMessage),
      ),
      pair(
        w2,
        "messages/second, agentstate 'step'",
        'msg/s',
        'higher',
        a.map((r) => r.w2.messagesPerSecond),
        p.map((r) => r.w2[mode].messagesPerSecond),
      ),
      pair(
        w2,
        "messages/second, agentstate 'run'",
        'msg/s',
        'higher',
        a.map((r) => r.w2RunMode.messagesPerSecond),
        p.map((r) => r.w2[mode].messagesPerSecond),
      ),
      pair(
        w2,
        "peak RSS, agentstate 'step'",
        'bytes',
        'lower',
        a.map((r) => r.w2.peakRssBytes),
        p.map((r) => r.w2[mode].peakRssBytes),
      ),
    ];
  });
  const w1Memory = `W1 T = ${T}, in memory (agentstate: MemorySessionStore; peer: MemorySession + RunState)`;
  const w2Memory = `W2 ${sessions} x 3, 50 in flight, in memory (agentstate: MemorySessionStore; peer: MemorySession + RunState)`;
  const memory = [
    pair(
      w1Memory,
      'total time',
      'ms',
      'lower',
      a.map((r) => r.w1Memory.totalMs),
      p.map((r) => r.w1Memory.totalMs),
    ),
    pair(
      w2Memory,
      'messages/second',
      'msg/s',
      'higher',
      a.map((r) => r.w2Memory.messagesPerSecond),
      p.map((r) => r.w2Memory.messagesPerSecond),
    ),
    pair(
      w2Memory,
      "messages/second, agentstate durable (LevelDB, 'step'): issue 28's target, at least 1.2x",
      'msg/s',
      'higher',
      a.map((r) => r.w2.messagesPerSecond),
      p.map((r) => r.w2Memory.messagesPerSecond),
    ),
    pair(
      w2Memory,
      'peak RSS',
      'bytes',
      'lower',
      a.map((r) => r.w2Memory.peakRssBytes),
      p.map((r) => r.w2Memory.peakRssBytes),
    ),
  ];
  const resume = DURABLE.flatMap((mode) => {
    const section = `W3 resume the T = ${T} conversation in a fresh process, plain node (peer: ${STORE_NAME[mode]})`;
    const as = w3.map((r) => r.agentstate);
    const ps = w3.map((r) => r.peer[mode]);
    return [
      pair(
        section,
        'total, spawn to result',
        'ms',
        'lower',
        as.map((r) => r.totalMs),
        ps.map((r) => r.totalMs),
      ),
      pair(
        section,
        'imports (the package)',
        'ms',
        'lower',
        as.map((r) => r.importsMs),
        ps.map((r) => r.importsMs),
      ),
      pair(
        section,
        'open the store',
        'ms',
        'lower',
        as.map((r) => r.openMs),
        ps.map((r) => r.openMs),
      ),
      pair(
        section,
        'the message (its history loaded)',
        'ms',
        'lower',
        as.map((r) => r.messageMs),
        ps.map((r) => r.messageMs),
      ),
    ];
  });
  return [...durable, ...memory, ...resume];
}
