/**
 * `npm run bench`: the runtime against its physical floor (issue 5). Prints a table and
 * writes bench/results.json.
 *
 *   npm run bench                  full: T = 10/100/500, W2 1,000 sessions, W4 10,000 sessions, 5 runs
 *                                  (W1 T = 500 and W5 on a throw-away PostgreSQL it starts)
 *   npm run bench -- --runs 3      fewer runs
 *   npm run bench -- --smoke       small and quick (T = 10, one run); writes to a temp file
 *   npm run bench -- --out f.json  where to write the results
 *   npm run bench -- --markdown    also print the tables as Markdown (for bench/README.md)
 *   npm run bench -- --postgres    only the PostgreSQL workloads (W1 on PostgreSQL, W5)
 *   npm run bench -- --w1-w2       only W1 at the longest T and W2 (a quick before/after of the hot path)
 *   npm run bench -- --inspector   only the inspector page in headless Chromium (render / fetch, bytes)
 *   npm run bench -- --attach      only attach to a 500-message session's last run against reading its journal
 *   npm run bench -- --workflows   only the workflow bench: 1,000 durable steps against plain XState and
 *                                  DBOS Transact; 10,000 instances waiting on a durable timer
 *   npm run bench -- --memory      only the memory bench: recall over 10,000 and 100,000 memories of one user
 *                                  on LevelDB and PostgreSQL against LangGraph.js's stores and a floor
 *   npm run bench -- --schedules   only the schedules bench: 10,000 schedules in the store, the scheduler's
 *                                  CPU idle and per fired tick, store operations per tick, LevelDB and PostgreSQL
 *   npm run bench -- --crashes     only the crash exploration bench: crash points explored per second by
 *                                  exploreCrashes on the bills and support examples, simulated (memory,
 *                                  LevelDB) and in child processes killed with SIGKILL; 3 runs
 *   npm run bench -- --agent-check only the agent check: checkAgent on the support example and on
 *                                  synthetic agent trees (13 and 40 agents)
 *   npm run bench -- --a2a         only the A2A bench: one sub-agent call over A2A on 127.0.0.1 against the
 *                                  same call of a local sub-agent (median per run, 3 runs, ratio)
 *   npm run bench -- --evals       only the evals bench: eval rows per second in seam mode (one model step
 *                                  each) against replaying the whole run, the eval's store on memory and
 *                                  LevelDB; 3 runs
 *   npm run bench -- --peers       only W1, W2 and W3 against a peer, @openai/agents, side by side
 *                                  (needs `npm ci --prefix bench/peers` first)
 */
import { writeFile } from 'node:fs/promises';
import { cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './fixtures.js';
import { parseArgs, type Config } from './bench-config.js';
import {
  renderMarkdown,
  renderTable,
  renderTargets,
  rowsOf,
  type Row,
  type TargetResult,
} from './table.js';
import { evaluateTargets, fixedCostTarget } from './targets.js';
import { warmUp } from './warmup.js';
import { describeStalls, measureStalls, type MachineStalls } from './machine-stalls.js';
import { runW1, type W1Run } from './workloads/w1-long-conversation.js';
import { runW2InChild, W2_CHILD, type W2Run } from './workloads/w2-many-conversations.js';
import { runW3, W3_CHILD, type W3Run } from './workloads/w3-resume.js';
import { buildScripts } from './built-scripts.js';
import { prepareW4Stores, runW4, W4_CHILD, type W4Run } from './workloads/w4-memory.js';
import { runW6, type W6Run } from './workloads/w6-sub-agent.js';
import { runFixedCost, type FixedCostRun } from './workloads/w7-fixed-cost.js';
import { inspectorRows, runInspectorPage } from './workloads/inspector-page.js';
import { attachPart } from './workloads/attach-replay.js';
import { workflowsPart } from './workloads/workflows-part.js';
import { memoryPart } from './workloads/memory-recall.js';
import { schedulesPart } from './workloads/schedules-part.js';
import { crashesPart } from './workloads/crashes-part.js';
import { evalsPart } from './workloads/evals.js';
import { agentCheckPart } from './workloads/agent-check.js';
import { a2aPart } from './workloads/a2a-call.js';
import {
  durabilityRows,
  runDurabilityModes,
  type ModeRound,
} from './workloads/durability-modes.js';
import { runW1Postgres, type W1PostgresRun } from './workloads/w1-postgres.js';
import { runW5, type W5Point } from './workloads/w5-processes.js';
import { startPostgres } from '../scripts/postgres-cluster.js';
import { renderPeerMarkdown } from './peer-table.js';
import {
  PEERS_NOT_INSTALLED,
  peersInstalled,
  runPeerComparison,
  W1_CHILD,
} from './workloads/peers.js';

const log = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

function machine(stalls: MachineStalls[]) {
  const cpu = cpus();
  return {
    /** The machine's own pauses, measured at the start and the end of the run. */
    stalls,
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    date: new Date().toISOString(),
  };
}

function w1Rows(T: number, runs: W1Run[]): Row[] {
  return rowsOf(`W1 one long conversation, T = ${T}`, runs, [
    ['total time', 'ms', (r) => r.totalMs],
    ['time/message, first 10%', 'ms', (r) => r.firstMsPerMessage],
    ['time/message, last 10%', 'ms', (r) => r.lastMsPerMessage],
    ['  last / first', 'x', (r) => r.lastMsPerMessage / r.firstMsPerMessage],
    ['bytes written/message, first 10%', 'bytes', (r) => r.firstBytesPerMessage],
    ['bytes written/message, last 10%', 'bytes', (r) => r.lastBytesPerMessage],
    ['  last / first', 'x', (r) => r.lastBytesPerMessage / r.firstBytesPerMessage],
    ['bytes written, total', 'bytes', (r) => r.bytesWritten],
    ['batches', 'count', (r) => r.batches],
    ['bytes stored at the end', 'bytes', (r) => r.bytesStored],
    ['peak RSS', 'bytes', (r) => r.peakRssBytes],
    ['time/message', 'ms', (r) => r.totalMs / r.messages],
    ['floor/message: LevelDB batches', 'ms', (r) => r.floor.levelMs / r.messages],
    ['floor/message: bare XState run', 'ms', (r) => r.floor.xstateMs / r.messages],
    ['time / floor', 'x', (r) => r.floorRatio],
  ]);
}

function w2Rows(runs: W2Run[]): Row[] {
  const first = runs[0]!;
  return rowsOf(
    `W2 many conversations, ${first.sessions} x ${first.messagesPerSession}, ${first.concurrency} in flight`,
    runs,
    [
      ['total time', 'ms', (r) => r.totalMs],
      ['messages/second', 'msg/s', (r) => r.messagesPerSecond],
      ['floor: LevelDB batches', 'ms', (r) => r.floor.levelMs],
      ['floor: bare XState runs', 'ms', (r) => r.floor.xstateMs],
      ['floor messages/second', 'msg/s', (r) => (r.messages * 1000) / r.floor.totalMs],
      ['time / floor', 'x', (r) => r.floorRatio],
      ['batches', 'count', (r) => r.batches],
      ['bytes written', 'bytes', (r) => r.bytesWritten],
      ['peak RSS', 'bytes', (r) => r.peakRssBytes],
      ['  RSS at the start (a fresh process after its warm-up)', 'bytes', (r) => r.startRssBytes],
    ],
  );
}

function w1PostgresRows(T: number, runs: W1PostgresRun[]): Row[] {
  return rowsOf(`W1 on PostgreSQL, T = ${T}`, runs, [
    ['time/message', 'ms', (r) => r.totalMs / r.messages],
    [
      'time/message, last 10% / first 10% (target <= 1.3)',
      'x',
      (r) => r.lastMsPerMessage / r.firstMsPerMessage,
    ],
    ['bytes written/message, first 10%', 'bytes', (r) => r.firstBytesPerMessage],
    ['bytes written/message, last 10%', 'bytes', (r) => r.lastBytesPerMessage],
    ['  last / first (target <= 1.2)', 'x', (r) => r.lastBytesPerMessage / r.firstBytesPerMessage],
    ['statements/message', 'count', (r) => r.statements / r.messages],
    ['floor/message: the same statements alone', 'ms', (r) => r.floorMs / r.messages],
    ['time / floor', 'x', (r) => r.floorRatio],
  ]);
}

function w5Rows(runs: W5Point[][]): Row[] {
  const counts = runs[0]!.map((p) => p.workers);
  return counts.flatMap((workers, i) =>
    rowsOf(`W5 W2 split across ${workers} worker process(es), one PostgreSQL`, runs, [
      ['messages/second', 'msg/s', (r) => r[i]!.messagesPerSecond],
      [
        'floor messages/second (the same statements alone)',
        'msg/s',
        (r) => r[i]!.floorMessagesPerSecond,
      ],
      ['time / floor', 'x', (r) => r[i]!.floorRatio],
      ['statements/message', 'count', (r) => r[i]!.statements / r[i]!.messages],
      ['worker CPU/message (all processes)', 'ms', (r) => r[i]!.workerCpuMsPerMessage],
      [
        'server backends on CPU (mean)',
        'x',
        (r) =>
          Object.entries(r[i]!.backends)
            .filter(([k]) => k.startsWith('CPU'))
            .reduce((n, [, v]) => n + v, 0),
      ],
      [
        'server backends waiting (mean)',
        'x',
        (r) =>
          Object.entries(r[i]!.backends)
            .filter(([k]) => !k.startsWith('CPU'))
            .reduce((n, [, v]) => n + v, 0),
      ],
    ]).map((row) => ({ ...row, section: row.section.replace('(es)', workers === 1 ? '' : 'es') })),
  );
}

function w6Rows(T: number, runs: W6Run[], w1: W1Run[]): Row[] {
  const w1Of = (r: W6Run) => w1[runs.indexOf(r)] ?? w1[0]!;
  return rowsOf(`W6 one sub-agent call per message, T = ${T}`, runs, [
    ['time/message', 'ms', (r) => r.totalMs / r.messages],
    [
      '  / W1 time/message (same run)',
      'x',
      (r) => r.totalMs / r.messages / (w1Of(r).totalMs / w1Of(r).messages),
    ],
    ['time/message, last 10% / first 10%', 'x', (r) => r.lastMsPerMessage / r.firstMsPerMessage],
    ['bytes written/message, first 10%', 'bytes', (r) => r.firstBytesPerMessage],
    ['bytes written/message, last 10%', 'bytes', (r) => r.lastBytesPerMessage],
    ['  last / first', 'x', (r) => r.lastBytesPerMessage / r.firstBytesPerMessage],
    ['batches/message', 'count', (r) => r.batches / r.messages],
  ]);
}

function w3Rows(T: number, runs: W3Run[]): Row[] {
  return rowsOf(`W3 resume the T = ${T} store in a fresh process`, runs, [
    ['start-up (spawn to first line: Node, no loader)', 'ms', (r) => r.startupMs],
    ['imports (the package, built): all', 'ms', (r) => r.importsMs],
    ['  of which xstate alone', 'ms', (r) => r.xstateMs],
    ['  of which zod alone (peer; app tools load it too)', 'ms', (r) => r.zodMs],
    ['  of which the package itself', 'ms', (r) => r.packageMs],
    ["the app's module (agent, tool)", 'ms', (r) => r.appMs],
    ['open (LevelSessionStore.open)', 'ms', (r) => r.openMs],
    ['the message (first load included)', 'ms', (r) => r.messageMs],
    ['total, spawn to result', 'ms', (r) => r.totalMs],
    ['(open + message) / total', '%', (r) => r.storeShare],
  ]);
}

function w4Rows(runs: W4Run[]): Row[] {
  const first = runs[0]!;
  return rowsOf(`W4 memory (fresh processes, after a full GC)`, runs, [
    [`RSS added by ${first.suspended} suspended sessions`, 'bytes', (r) => r.suspendedRssDelta],
    [`heap added by ${first.suspended} suspended sessions`, 'bytes', (r) => r.suspendedHeapDelta],
    ['RSS noise between identical processes (max - min)', 'bytes', (r) => r.rssNoise],
    [
      `RSS per active session (${first.active} runs in flight)`,
      'bytes',
      (r) => r.activeRssPerSession,
    ],
    ['heap per active session', 'bytes', (r) => r.activeHeapPerSession],
    [`RSS of ${first.active} active sessions`, 'bytes', (r) => r.activeRssTotal],
    ['RSS per bare session actor', 'bytes', (r) => r.actorRssPerActor],
    ['heap per bare session actor', 'bytes', (r) => r.actorHeapPerActor],
  ]);
}

/** The per-message fixed cost (issue 16), `config.runs` times; small with `--smoke`. */
async function fixedCostRuns(config: Config): Promise<FixedCostRun[]> {
  const runs: FixedCostRun[] = [];
  for (let run = 0; run < config.runs; run++) {
    log(`per-message fixed cost, run ${run + 1}/${config.runs}`);
    runs.push(await runFixedCost(config.smoke ? { messages: 20, turns: 20 } : {}));
  }
  return runs;
}

function fixedCostRows(runs: FixedCostRun[]): Row[] {
  const { messages, turns } = runs[0]!;
  return rowsOf(`Per-message fixed cost (a session just used vs one ${turns}-turn run)`, runs, [
    [
      `median time/message, last 10% of ${messages} messages to one session`,
      'ms',
      (r) => r.messageMs,
    ],
    ['batches (durable steps)/message', 'count', (r) => r.batchesPerMessage],
    ['median time/batch in the middle of the long run', 'ms', (r) => r.stepMs],
    ['message / its batches in the long run (medians)', 'x', (r) => r.ratio],
    ['the same, means (machine pauses included)', 'x', (r) => r.meanRatio],
  ]);
}

/** W1 on PostgreSQL and W5, on a throw-away cluster this starts and removes. */
async function postgresWorkloads(
  config: Config,
  longest: number,
): Promise<{ w1pg: W1PostgresRun[]; w5: W5Point[][] }> {
  log('starting a throw-away PostgreSQL for W1 on PostgreSQL and W5');
  const cluster = await startPostgres();
  const w1pg: W1PostgresRun[] = [];
  const w5: W5Point[][] = [];
  try {
    for (let run = 0; run < config.runs; run++) {
      log(`W1 on PostgreSQL T=${longest}, run ${run + 1}/${config.runs}`);
      w1pg.push(await runW1Postgres(cluster.url, longest, run));
      log(
        `W5 ${config.w2Sessions} sessions on ${config.w5Workers.join('/')} processes, run ${run + 1}/${config.runs}`,
      );
      w5.push(
        await runW5(
          { url: cluster.url, sessions: config.w2Sessions, workerCounts: config.w5Workers },
          run,
        ),
      );
    }
  } finally {
    await cluster.destroy();
  }
  return { w1pg, w5 };
}

/** What a part could not measure here, and why. */
function shownNotes(notes: readonly string[]): string {
  return notes.length ? `\n${notes.join('\n')}\n` : '';
}

/** The bench's header line: the machine, and how much time it took away at the start and end. */
function header(kind: string, info: ReturnType<typeof machine>): string {
  return (
    `\nagentstate benchmark (${kind}): ${info.cpu}, ${info.cores} cores, Node ${info.node}, ${info.date}\n` +
    `machine pauses (start, end): ${info.stalls.map(describeStalls).join('; ')}\n\n`
  );
}

/** W1 at the longest T and W2 in a fresh built process, `config.runs` times each. */
async function hotPathRuns(config: Config, longest: number): Promise<{ w1: W1Run[]; w2: W2Run[] }> {
  const built = await buildScripts([W2_CHILD]);
  try {
    const w1: W1Run[] = [];
    const w2: W2Run[] = [];
    for (let run = 0; run < config.runs; run++) {
      log(`W1 T=${longest}, run ${run + 1}/${config.runs}`);
      w1.push(await runW1({ messages: longest }));
      log(
        `W2 ${config.w2Sessions} sessions (a fresh process, built), run ${run + 1}/${config.runs}`,
      );
      w2.push(await runW2InChild(built, { sessions: config.w2Sessions }, config.warmUpMessages));
    }
    return { w1, w2 };
  } finally {
    await built.cleanup();
  }
}

/** What one part of the bench gives: its rows and targets, its results, notes. */
interface OnlyPart {
  kind: string;
  rows: Row[];
  targets: TargetResult[];
  raw: object;
  markdown?: string;
  notes?: string[];
}

/** The parts that need only the smoke flag and the run count, by their `--only` name. */
const PARTS: Readonly<
  Record<
    string,
    (
      config: { smoke: boolean; runs: number },
      log: (message: string) => void,
    ) => OnlyPart | Promise<OnlyPart>
  >
> = {
  attach: attachPart,
  workflows: workflowsPart,
  memory: memoryPart,
  schedules: schedulesPart,
  crashes: crashesPart,
  'agent-check': agentCheckPart,
  a2a: a2aPart,
  evals: evalsPart,
};

/** One part of the bench alone (`Config.only`): its rows, targets and results. */
async function onlyPart(config: Config, stalls: MachineStalls[]): Promise<void> {
  const longest = Math.max(...config.conversationLengths);
  let part: OnlyPart;
  if (config.only === 'postgres') {
    const { w1pg, w5 } = await postgresWorkloads(config, longest);
    const rows = [...w1PostgresRows(longest, w1pg), ...w5Rows(w5)];
    part = { kind: 'PostgreSQL', rows, targets: [], raw: { w1pg, w5 } };
  } else if (config.only === 'peers') {
    const built = await buildScripts([W1_CHILD, W2_CHILD, W3_CHILD]);
    try {
      const sizes = {
        messages: longest,
        sessions: config.w2Sessions,
        runs: config.runs,
        warmUpMessages: config.warmUpMessages,
      };
      const { pairs, rows, raw } = await runPeerComparison(built, sizes, log);
      const markdown = renderPeerMarkdown(pairs, config.runs);
      part = { kind: 'against @openai/agents 0.14', rows, targets: [], raw, markdown };
    } finally {
      await built.cleanup();
    }
  } else if (config.only === 'inspector') {
    const sizes = config.smoke
      ? { messages: 20, toolCalls: 20, sessions: 500 }
      : { messages: 500, toolCalls: 100, sessions: 10_000 };
    const inspector = await runInspectorPage(sizes, config.runs, log);
    part = {
      kind: 'inspector page',
      rows: inspectorRows(inspector, sizes),
      targets: [],
      raw: { inspector },
    };
  } else if (config.only && config.only in PARTS) {
    part = await PARTS[config.only]!(config, log);
  } else if (config.only === 'w1-w2') {
    const { w1, w2 } = await hotPathRuns(config, longest);
    part = {
      kind: 'W1 and W2',
      rows: [...w1Rows(longest, w1), ...w2Rows(w2)],
      targets: [],
      raw: { w1, w2 },
    };
  } else {
    const fixedCost = await fixedCostRuns(config);
    const rows = fixedCostRows(fixedCost);
    part = { kind: 'fixed cost', rows, targets: [fixedCostTarget(fixedCost)], raw: { fixedCost } };
  }
  const { kind, rows, targets, raw, markdown, notes = [] } = part;
  const info = machine([...stalls, measureStalls(config.smoke ? 200 : 2000)]);
  const shownTargets = targets.length ? `\n${renderTargets(targets)}\n` : '';
  process.stdout.write(
    `${header(kind, info)}${renderTable(rows, config.runs)}\n${shownNotes(notes)}${shownTargets}`,
  );
  if (config.markdown)
    process.stdout.write(`\n${markdown ?? renderMarkdown(rows, targets, config.runs)}\n`);
  await writeFile(
    config.out,
    `${JSON.stringify({ machine: info, config, rows, targets, raw }, null, 2)}\n`,
  );
}

async function main(): Promise<void> {
  const config = parseArgs(process.argv.slice(2));
  if (config.only === 'peers' && !peersInstalled()) {
    process.stderr.write(`[bench] ${PEERS_NOT_INSTALLED}\n`);
    process.exitCode = 1;
    return;
  }
  const started = performance.now();
  const stalls = [measureStalls(config.smoke ? 200 : 2000)];
  log(`machine pauses: ${describeStalls(stalls[0]!)}`);
  log(`${config.smoke ? 'smoke' : 'full'} run, ${config.runs} run(s) per figure; warming up`);
  // Against the peer, every figure runs in a child that warms itself up.
  if (config.only !== 'peers') await warmUp(config.warmUpMessages);
  if (config.only) return onlyPart(config, stalls);

  const work = await tempDir('agentstate-bench-');
  log('compiling the W2, W3 and W4 children (the package as `npm run build` ships it)');
  const built = await buildScripts([W2_CHILD, W3_CHILD, W4_CHILD]);
  try {
    const longest = Math.max(...config.conversationLengths);
    const w3Store = join(work.path, 'w1-longest');
    const w1: Record<number, W1Run[]> = {};
    const w2: W2Run[] = [];
    const w6: W6Run[] = [];
    const modes: ModeRound[][] = [];
    for (let run = 0; run < config.runs; run++) {
      for (const T of config.conversationLengths) {
        log(`W1 T=${T}, run ${run + 1}/${config.runs}`);
        const keepAt = run === 0 && T === longest ? w3Store : undefined;
        (w1[T] ??= []).push(await runW1({ messages: T, keepAt }));
      }
      log(`W6 T=${longest}, run ${run + 1}/${config.runs}`);
      w6.push(await runW6({ messages: longest }));
      log(
        `W2 ${config.w2Sessions} sessions (a fresh process, built), run ${run + 1}/${config.runs}`,
      );
      w2.push(await runW2InChild(built, { sessions: config.w2Sessions }, config.warmUpMessages));
      modes.push(await runDurabilityModes({ messages: longest, sessions: config.w2Sessions }, log));
    }
    const w3: W3Run[] = [];
    for (let run = 0; run < config.runs; run++) {
      log(`W3 resume, run ${run + 1}/${config.runs}`);
      w3.push(await runW3(built, w3Store, longest));
    }
    const fixedCost = await fixedCostRuns(config);
    log(`W4 preparing ${config.suspendedSessions} suspended sessions`);
    const stores = await prepareW4Stores(join(work.path, 'w4'), config.suspendedSessions);
    const w4: W4Run[] = [];
    for (let run = 0; run < config.runs; run++) {
      log(`W4 memory, run ${run + 1}/${config.runs}`);
      w4.push(await runW4(built, stores, config.activeSessions));
    }

    const rows = [
      ...config.conversationLengths.flatMap((T) => w1Rows(T, w1[T]!)),
      ...w6Rows(longest, w6, w1[longest]!),
      ...w2Rows(w2),
      ...durabilityRows(modes),
      ...w3Rows(longest, w3),
      ...w4Rows(w4),
      ...fixedCostRows(fixedCost),
    ];
    const { w1pg, w5 } = await postgresWorkloads(config, longest);
    rows.push(...w1PostgresRows(longest, w1pg), ...w5Rows(w5));
    const workflows = await workflowsPart(config, log);
    rows.push(...workflows.rows);
    const memory = await memoryPart(config, log);
    rows.push(...memory.rows);
    const schedules = await schedulesPart(config, log);
    rows.push(...schedules.rows);
    const agentCheck = agentCheckPart(config, log);
    rows.push(...agentCheck.rows);
    const targets = [
      ...evaluateTargets(w1[longest]!, w2, w3, w4, fixedCost),
      ...workflows.targets,
      ...memory.targets,
    ];
    const info = machine([...stalls, measureStalls(config.smoke ? 200 : 2000)]);
    process.stdout.write(
      `${header(config.smoke ? 'smoke' : 'full', info)}${renderTable(rows, config.runs)}\n${shownNotes([...memory.notes, ...schedules.notes])}\n${renderTargets(targets)}\n`,
    );
    if (config.markdown) process.stdout.write(`\n${renderMarkdown(rows, targets, config.runs)}\n`);
    await writeFile(
      config.out,
      `${JSON.stringify({ machine: info, config, rows, targets, raw: { w1, w2, w3, w4, w6, w1pg, w5, fixedCost, modes, workflows: workflows.raw, memory: memory.raw, schedules: schedules.raw, agentCheck: agentCheck.raw } }, null, 2)}\n`,
    );
    log(
      `results written to ${config.out} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
  } finally {
    await built.cleanup();
    await work.cleanup();
  }
}

await main();
