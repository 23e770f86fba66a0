/**
 * Where W2's memory goes. The parent compiles this script against the built package
 * (`built-scripts.ts`, as `w2-child.ts` runs) and runs it `runs` times in fresh processes under
 * plain `node --expose-gc`; each child samples `process.memoryUsage()` and V8's heap spaces at
 * each phase: bare Node, the package and `level` imported, after the warm-up (as W2 starts),
 * the same after a full GC (what stays), W2's peak (sampled every 10 ms), after W2 with its
 * store still open, before and after a full GC (what 1,000 sessions keep), and after the store
 * closed. The parent prints the median of each figure, in bytes (RSS barely depends on the
 * machine's load; times are not measured). With `--snapshot` the first child also writes a heap
 * snapshot after W2 (GC'd, store open) and the parent prints the retained self size by
 * constructor; with `--allocations` a run of its own first samples what W2 allocates (garbage
 * included: V8's sampling heap profiler through `node:inspector`), in total and by function. Run: `npx tsx bench/memory-profile.ts [runs] [--sessions N] [--warm-up N] [--cached N]
 * [--live N] [--snapshot] [--allocations] [--node-flags '<V8 flags>']`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session } from 'node:inspector/promises';
import * as v8 from 'node:v8';

interface Sample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  newSpace: number;
  oldSpaceUsed: number;
  codeSpace: number;
  /** RSS of anonymous memory (heap, malloc) and of mapped files (the node binary, addons). */
  rssAnon: number;
  rssFile: number;
}

/** `RssAnon` and `RssFile` of /proc/self/status, in bytes (0 where there is none). */
function procRss(): { rssAnon: number; rssFile: number } {
  let text = '';
  try {
    text = readFileSync('/proc/self/status', 'utf8');
  } catch {
    // not Linux
  }
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
}

type Phase =
  | 'node started'
  | 'package imported'
  | 'after warm-up (W2 starts)'
  | 'after warm-up, GC'
  | 'W2 peak'
  | 'after W2, store open'
  | 'after W2, store open, GC'
  | 'store closed, GC';

function sample(): Sample {
  const usage = process.memoryUsage();
  const spaces = new Map(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s]));
  return {
    rss: usage.rss,
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    newSpace: spaces.get('new_space')?.space_size ?? 0,
    oldSpaceUsed: spaces.get('old_space')?.space_used_size ?? 0,
    codeSpace: spaces.get('code_space')?.space_size ?? 0,
    ...procRss(),
  };
}

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run under node --expose-gc');
  gc();
  gc();
}

interface ChildOptions {
  sessions: number;
  warmUp: number;
  cached: number | undefined;
  live: number | undefined;
  snapshot: string | undefined;
  allocations: boolean;
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Bytes allocated during W2 (sampled, garbage included), in total and by function. */
interface Allocations {
  total: number;
  top: [string, number][];
}

function allocationsOf(head: SamplingNode, top = 20): Allocations {
  const byFunction = new Map<string, number>();
  let total = 0;
  const visit = (node: SamplingNode): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(visit);
  };
  visit(head);
  return { total, top: [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top) };
}

async function child(
  options: ChildOptions,
): Promise<{ phases: Record<Phase, Sample>; allocations?: Allocations }> {
  const phases = {} as Record<Phase, Sample>;
  phases['node started'] = sample();
  const { Agent, LevelSessionStore } = await import('../src/index.js');
  const fixtures = await import('./fixtures.js');
  const { warmUp } = await import('./warmup.js');
  await import('level');
  phases['package imported'] = sample();
  if (options.warmUp > 0) await warmUp(options.warmUp);
  phases['after warm-up (W2 starts)'] = sample();
  fullGc();
  phases['after warm-up, GC'] = sample();

  const dir = await fixtures.tempDir('agentstate-memory-');
  const store = await LevelSessionStore.open({ path: join(dir.path, 'db') });
  const agent = new Agent({
    name: 'bench',
    model: new fixtures.BenchModel(),
    tools: [fixtures.add],
    maxTurns: 10,
    ...(options.cached === undefined ? {} : { cachedSessions: options.cached }),
    ...(options.live === undefined ? {} : { liveSessions: options.live }),
  });
  const inspector = options.allocations ? new Session() : undefined;
  if (inspector) {
    inspector.connect();
    await inspector.post('HeapProfiler.startSampling', {
      samplingInterval: 16384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    } as never);
  }
  let allocations: Allocations | undefined;
  let peak = sample();
  const timer = setInterval(() => {
    const now = sample();
    if (now.rss > peak.rss) peak = now;
  }, 10);
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < options.sessions) {
        const s = next++;
        const key = { sessionId: `conversation-${s}`, userId: `user-${s}` };
        for (let m = 0; m < 3; m++) await agent.run(fixtures.userMessage(m), { ...key, store });
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    clearInterval(timer);
    if (inspector) {
      const { profile } = (await inspector.post('HeapProfiler.stopSampling')) as {
        profile: { head: SamplingNode };
      };
      inspector.disconnect();
      allocations = allocationsOf(profile.head);
    }
    phases['W2 peak'] = peak;
    phases['after W2, store open'] = sample();
    fullGc();
    phases['after W2, store open, GC'] = sample();
    if (options.snapshot) v8.writeHeapSnapshot(options.snapshot);
  } finally {
    clearInterval(timer);
    await store.close();
    await dir.cleanup();
  }
  fullGc();
  phases['store closed, GC'] = sample();
  // The agent (and its session cache) is reachable until here.
  if (agent.name !== 'bench') throw new Error('unreachable');
  return allocations ? { phases, allocations } : { phases };
}

/** Retained self size by constructor (objects) or by type (strings, code, ...), largest first. */
function summarizeSnapshot(path: string, top = 25): [string, number, number][] {
  const snapshot = JSON.parse(readFileSync(path, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const stride = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const totals = new Map<string, [number, number]>();
  for (let i = 0; i < snapshot.nodes.length; i += stride) {
    const type = types[snapshot.nodes[i + typeAt!]!]!;
    const name = snapshot.strings[snapshot.nodes[i + nameAt!]!]!;
    const group = type === 'object' || type === 'closure' ? `${type} ${name}` : `(${type})`;
    const entry = totals.get(group) ?? [0, 0];
    entry[0] += snapshot.nodes[i + sizeAt!]!;
    entry[1] += 1;
    totals.set(group, entry);
  }
  return [...totals]
    .map(([group, [bytes, count]]): [string, number, number] => [group, bytes, count])
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
}

const MB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function parent(argv: string[]): Promise<void> {
  const runs = Number(argv.find((a) => /^\d+$/.test(a)) ?? 3);
  const flag = (name: string): string[] => {
    const at = argv.indexOf(name);
    return at < 0 ? [] : [name, argv[at + 1]!];
  };
  const nodeFlags = flag('--node-flags')[1]?.split(' ') ?? [];
  const passed = [
    ...flag('--sessions'),
    ...flag('--warm-up'),
    ...flag('--cached'),
    ...flag('--live'),
  ];
  const { buildScripts } = await import('./built-scripts.js');
  const built = await buildScripts(['memory-profile.ts']);
  const snapshot = argv.includes('--snapshot')
    ? join(tmpdir(), `agentstate-w2-${process.pid}.heapsnapshot`)
    : undefined;
  const runChild = (args: string[]): Awaited<ReturnType<typeof child>> => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', ...nodeFlags, built.path('memory-profile.ts'), '--child', ...args],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    );
    return JSON.parse(out.trim().split('\n').pop()!) as Awaited<ReturnType<typeof child>>;
  };
  try {
    if (argv.includes('--allocations')) {
      // A run of its own: the sampling profiler's own memory is not in the medians.
      const { allocations } = runChild([...passed, '--allocations']);
      const messages = Number(flag('--sessions')[1] ?? 1000) * 3;
      const perMessage = `${(allocations!.total / messages / 1024).toFixed(1)} KB a message`;
      console.log(`Allocated during W2 (sampled, garbage included): ${MB(allocations!.total)},`);
      console.log(`${perMessage}; by function:`);
      for (const [name, bytes] of allocations!.top)
        console.log(`${MB(bytes).padStart(10)}  ${name}`);
      console.log('');
    }
    const results: Record<Phase, Sample>[] = [];
    for (let run = 0; run < runs; run++) {
      const args = [...passed, ...(snapshot && run === 0 ? ['--write-snapshot', snapshot] : [])];
      results.push(runChild(args).phases);
    }
    const columns: (keyof Sample)[] = [
      'rss',
      'rssAnon',
      'rssFile',
      'heapTotal',
      'heapUsed',
      'external',
      'arrayBuffers',
      'newSpace',
      'codeSpace',
    ];
    console.log(
      `W2 memory, median of ${runs} fresh processes (${[...nodeFlags, ...passed].join(' ') || 'defaults'})`,
    );
    console.log(['phase'.padEnd(28), ...columns.map((c) => c.padStart(12))].join(' '));
    for (const phase of Object.keys(results[0]!) as Phase[]) {
      const cells = columns.map((c) => MB(median(results.map((r) => r[phase][c]))).padStart(12));
      console.log([phase.padEnd(28), ...cells].join(' '));
    }
    if (snapshot) {
      console.log('\nRetained after W2 (GC, store open), self size by constructor:');
      for (const [group, bytes, count] of summarizeSnapshot(snapshot)) {
        console.log(`${MB(bytes).padStart(10)} ${String(count).padStart(9)}  ${group}`);
      }
    }
  } finally {
    if (snapshot) rmSync(snapshot, { force: true });
    await built.cleanup();
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at < 0 ? undefined : argv[at + 1];
  };
  const number = (name: string): number | undefined => {
    const text = value(name);
    return text === undefined ? undefined : Number(text);
  };
  const result = await child({
    sessions: number('--sessions') ?? 1000,
    warmUp: number('--warm-up') ?? 300,
    cached: number('--cached'),
    live: number('--live'),
    snapshot: value('--write-snapshot'),
    allocations: argv.includes('--allocations'),
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await parent(argv);
}
