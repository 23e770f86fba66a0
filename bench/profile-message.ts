import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { Agent, type LevelSessionStore } from '../src/index.js';
import {
  add,
  BenchModel,
  benchAgent,
  openRecordedStore,
  tempDir,
  userMessage,
  W1_SESSION,
} from './fixtures.js';
import { measureFloor } from './floors.js';
import { now } from './stats.js';
import { warmUp } from './warmup.js';

/**
 * Where a message's time goes: runs a W2-like load (many sessions x 3 messages, 50 in flight)
 * and a W1-like one (one session, T messages) on LevelDB under V8's CPU profiler (through
 * `node:inspector`, no dependency), then prints the self time per message of each part of the
 * hot path (functions grouped by file and package), the heaviest functions by self and by total
 * time, the writes per message and the floor of the same run. A second pass without the
 * profiler gives the wall time. Run: `npx tsx bench/profile-message.ts [sessions] [T]`.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The part of the hot path a function belongs to, by its file (or V8's pseudo-frames). */
function partOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return 'idle (waiting on LevelDB threads, timers)';
  if (functionName === '(program)' || functionName === '(root)') return 'V8/native (program)';
  if (url === '') {
    return 'native builtins (no caller with a file)';
  }
  if (url === 'node:inspector') return 'the profiler itself (not the workload)';
  if (url.startsWith('node:')) return 'Node internals (promises, async hooks, timers)';
  if (url.includes('/node_modules/xstate/')) return 'XState internals';
  if (url.includes('/node_modules/zod/')) return 'zod checks';
  if (
    /\/node_modules\/(classic-level|abstract-level|level|level-|module-error|maybe-combine)/.test(
      url,
    )
  )
    return 'LevelDB (JS side of level)';
  if (url.includes('/node_modules/')) return 'other packages (tsx loader, ...)';
  const src = /\/src\/(.*)$/.exec(url)?.[1];
  if (src === undefined) return 'bench harness';
  if (
    /^persistence\/(kv\/)?(record-codecs|session-record-codec|sealed-value|encoded-entries|plain-records|sub-run-encoding|sub-run-parts|written-values|field-delta|record-changes)/.test(
      src,
    )
  )
    return 'ours: encoding (codecs, deltas, sealed values)';
  if (src.startsWith('persistence/')) return 'ours: store (keys, batches, checks)';
  if (/^session-host\/(session-committer|session-loader|restored-log)/.test(src))
    return 'ours: snapshot save/restore (committer, loader)';
  if (src.startsWith('session-host/')) return 'ours: session host (wiring, cache)';
  if (src.startsWith('machines/')) return 'ours: machine guards/actions/schemas';
  if (src.startsWith('actors/')) return 'ours: step actors';
  if (/^(sessions|actions)\//.test(src)) return 'ours: session runtime and actions';
  if (src.startsWith('agent/')) return 'ours: agent facade';
  if (src.startsWith('testing/')) return 'ours: scripted model (bench)';
  return `ours: ${src.split('/')[0]}`;
}

const fnKey = (f: ProfileNode['callFrame']): string =>
  `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;

/** Self time per part, and self and total (recursion counted once) per function, in µs. */
function analyse(profile: CpuProfile): {
  parts: Map<string, number>;
  self: Map<string, number>;
  total: Map<string, number>;
  natives: Map<string, number>;
  sampledUs: number;
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfById = new Map<number, number>();
  let sampledUs = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    selfById.set(id, (selfById.get(id) ?? 0) + dt);
    sampledUs += dt;
  });
  const parts = new Map<string, number>();
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const natives = new Map<string, number>();
  for (const [id, us] of selfById) {
    const node = byId.get(id);
    if (!node) continue;
    // A native frame (no file: builtins, bindings) counts for the part of its nearest caller
    // with a file, so that e.g. JSON.stringify called by a codec is the codec's time.
    let part = partOf(node.callFrame);
    if (node.callFrame.url === '' && !node.callFrame.functionName.startsWith('(')) {
      let at = parent.get(id);
      while (at !== undefined && byId.get(at)?.callFrame.url === '') at = parent.get(at);
      const caller = at === undefined ? undefined : byId.get(at)?.callFrame;
      if (caller) {
        part = partOf(caller);
        const key = `${node.callFrame.functionName || '(anonymous)'} <- ${fnKey(caller)}`;
        natives.set(key, (natives.get(key) ?? 0) + us);
      }
    }
    parts.set(part, (parts.get(part) ?? 0) + us);
    self.set(fnKey(node.callFrame), (self.get(fnKey(node.callFrame)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame) break;
      const key = fnKey(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + us);
    }
  }
  return { parts, self, total, natives, sampledUs };
}

type Load = (store: LevelSessionStore) => Promise<number>;

/** W2-like: `sessions` x 3 messages, 50 in flight. Returns the number of messages sent. */
const w2 =
  (sessions: number): Load =>
  async (store) => {
    const agent = benchAgent();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < sessions) {
        const s = next++;
        for (let m = 0; m < 3; m++) {
          await agent.run(userMessage(m), { sessionId: `c-${s}`, userId: `u-${s}`, store });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(50, sessions) }, worker));
    return sessions * 3;
  };

/** W1-like: one session, `messages` messages in sequence. */
const w1 =
  (messages: number): Load =>
  async (store) => {
    const agent = benchAgent();
    for (let i = 0; i < messages; i++) await agent.run(userMessage(i), { ...W1_SESSION, store });
    return messages;
  };

async function measure(
  name: string,
  load: Load,
  inspector: Session | undefined,
): Promise<{
  ms: number;
  messages: number;
  profile?: CpuProfile;
  batches: number;
  bytes: number;
  floorMs: number;
  levelMs: number;
  xstateMs: number;
}> {
  const dir = await tempDir(`agentstate-profile-${name}-`);
  const { store, batches } = await openRecordedStore(join(dir.path, 'db'));
  let profile: CpuProfile | undefined;
  let ms: number;
  let messages: number;
  let stats: { batches: number; bytesWritten: number };
  try {
    if (inspector) await inspector.post('Profiler.start');
    const start = now();
    messages = await load(store);
    ms = now() - start;
    if (inspector) profile = (await inspector.post('Profiler.stop')).profile as CpuProfile;
    stats = store.stats();
  } finally {
    await store.close();
    await dir.cleanup();
  }
  const floor = await measureFloor(batches, messages);
  return {
    ms,
    messages,
    ...(profile ? { profile } : {}),
    batches: stats.batches,
    bytes: stats.bytesWritten,
    floorMs: floor.totalMs,
    levelMs: floor.levelMs,
    xstateMs: floor.xstateMs,
  };
}

const us = (x: number): string => x.toFixed(0).padStart(7);

function report(
  name: string,
  plain: Awaited<ReturnType<typeof measure>>,
  profiled: Awaited<ReturnType<typeof measure>>,
): void {
  const n = profiled.messages;
  console.log(`\n## ${name}: ${n} messages`);
  console.log(
    `wall, no profiler: ${((plain.ms * 1000) / n).toFixed(0)} µs/message; floor ${((plain.floorMs * 1000) / n).toFixed(0)} µs/message ` +
      `(LevelDB batches ${((plain.levelMs * 1000) / n).toFixed(0)}, bare XState run ${((plain.xstateMs * 1000) / n).toFixed(0)}); ` +
      `time/floor ${(plain.ms / plain.floorMs).toFixed(2)}x`,
  );
  console.log(
    `writes: ${(plain.batches / n).toFixed(2)} batches/message, ${(plain.bytes / n / 1024).toFixed(1)} KB/message`,
  );
  if (!profiled.profile) return;
  const { parts, self, total, natives, sampledUs } = analyse(profiled.profile);
  console.log(
    `profiled: ${((profiled.ms * 1000) / n).toFixed(0)} µs/message wall, ${(sampledUs / n).toFixed(0)} µs/message sampled`,
  );
  console.log('\nself time by part (µs/message, share of sampled):');
  for (const [part, t] of [...parts].sort((a, b) => b[1] - a[1])) {
    console.log(`${us(t / n)}  ${((100 * t) / sampledUs).toFixed(1).padStart(5)}%  ${part}`);
  }
  console.log('\nheaviest native frames, by the caller they are counted for (µs/message):');
  for (const [key, t] of [...natives].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.log(`${us(t / n)}  ${key}`);
  console.log('\nheaviest functions by self time (µs/message):');
  for (const [key, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${us(t / n)}  ${key}`);
  console.log('\nheaviest functions of src/ and xstate by total time (µs/message):');
  const ours = [...total].filter(([k]) => / src\/|xstate\//.test(k)).sort((a, b) => b[1] - a[1]);
  for (const [key, t] of ours.slice(0, 45)) console.log(`${us(t / n)}  ${key}`);
}

/**
 * What one message does, counted (no timing): actors created, snapshots emitted and events
 * processed (XState's inspection), and the store's calls, over `sessions` x 3 messages.
 */
async function countPerMessage(sessions: number): Promise<void> {
  const counts = new Map<string, number>();
  const bump = (k: string): void => void counts.set(k, (counts.get(k) ?? 0) + 1);
  const agent = new Agent({
    name: 'bench',
    model: new BenchModel(),
    tools: [add],
    maxTurns: 10,
    inspect: (event) => {
      if (event.type === '@xstate.actor') {
        const src = (event.actorRef as { src?: unknown }).src;
        bump(`actor created: ${typeof src === 'string' ? src : 'session/run machine or inline'}`);
      } else bump(event.type);
    },
  });
  const dir = await tempDir('agentstate-profile-count-');
  const { store } = await openRecordedStore(join(dir.path, 'db'));
  for (const method of ['load', 'loadForUpdate', 'save', 'readHistory', 'create'] as const) {
    const original = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      bump(`store.${method}`);
      return original(...args);
    };
  }
  try {
    for (let s = 0; s < sessions; s++) {
      for (let m = 0; m < 3; m++) {
        await agent.run(userMessage(m), { sessionId: `n-${s}`, userId: `u-${s}`, store });
      }
    }
    const batches = store.stats().batches;
    console.log(`\n## per message, counted over ${sessions} x 3 messages`);
    for (const [k, v] of [...counts].sort())
      console.log(`${(v / (sessions * 3)).toFixed(2).padStart(7)}  ${k}`);
    console.log(`${(batches / (sessions * 3)).toFixed(2).padStart(7)}  LevelDB batches`);
  } finally {
    await store.close();
    await dir.cleanup();
  }
}

async function main(): Promise<void> {
  const sessions = Number(process.argv[2] ?? 1000);
  const turns = Number(process.argv[3] ?? 500);
  await warmUp(300);
  await countPerMessage(50);
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
  for (const [name, load] of [
    [`W2-like (${sessions} sessions x 3, 50 in flight)`, w2(sessions)],
    [`W1-like (T = ${turns})`, w1(turns)],
  ] as const) {
    const plain = await measure('plain', load, undefined);
    const profiled = await measure('profiled', load, inspector);
    report(name, plain, profiled);
  }
  inspector.disconnect();
}

await main();
