import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { benchScriptPath, REPO_ROOT } from './child.js';

/** The PostgreSQL side of the bench (W1 on PostgreSQL, W5): pools, schemas, worker processes. */

/** Every table of a store's schema, emptied (keeping the schema version) for a floor replay. */
export async function emptyTables(url: string, schema: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const tables = ['sessions', 'history', 'journal', 'totals', 'leases', 'decisions', 'audit'];
    const names = tables.map((t) => `"${schema}".agentstate_${t}`).join(', ');
    await pool.query(`TRUNCATE ${names}`);
  } finally {
    await pool.end();
  }
}

/** A statement a store sent: the in-flight slot that sent it, its text and values. */
export type Statement = [slot: number, text: string, values: unknown[]];

/**
 * A pool whose every statement is also kept, tagged with `slot()` (which in-flight worker of
 * the workload sent it), to replay as the floor.
 */
export function recordingPool(
  url: string,
  max: number,
  slot: () => number = () => 0,
): { pool: pg.Pool; statements: Statement[] } {
  const pool = new pg.Pool({ connectionString: url, max });
  const statements: Statement[] = [];
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: typeof query }).query = (text, values) => {
    statements.push([slot(), text, values ?? []]);
    return query(text, values);
  };
  return { pool, statements };
}

/**
 * Sends `statements` again with nothing else: each slot's in order, the slots concurrently,
 * on a fresh pool (connected first; `ready` is awaited before the clock starts). Returns the
 * time in ms.
 */
export async function replayStatements(
  url: string,
  statements: readonly Statement[],
  ready: () => Promise<void> = async () => undefined,
): Promise<number> {
  const bySlot = new Map<number, Statement[]>();
  for (const s of statements) bySlot.set(s[0], [...(bySlot.get(s[0]) ?? []), s]);
  const pool = new pg.Pool({ connectionString: url, max: bySlot.size + 1 });
  try {
    await pool.query('SELECT 1');
    await ready();
    const start = performance.now();
    await Promise.all(
      [...bySlot.values()].map(async (chain) => {
        for (const [, text, values] of chain) await pool.query(text, values);
      }),
    );
    return performance.now() - start;
  } finally {
    await pool.end();
  }
}

export interface ProcessTimes {
  startedAt: number;
  endedAt: number;
  messages: number;
  statements: number;
  /** CPU time (user + system) of the process over its measured phase. */
  cpuMs: number;
}

/**
 * Samples what the server's client backends are doing (`pg_stat_activity`: running on CPU,
 * waiting for a lock, for the client, for I/O...) until `stop`, returning the share of each.
 */
export function sampleWaits(url: string): { stop(): Promise<Record<string, number>> } {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const counts: Record<string, number> = {};
  let total = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await pool.query<{ what: string }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU (' || state || ')') AS what
         FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
           AND state <> 'idle'`,
      );
      for (const { what } of rows) counts[what] = (counts[what] ?? 0) + 1;
      total += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await pool.end();
      // Backends in each state, on average over the samples.
      return Object.fromEntries(
        Object.entries(counts)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => [k, Math.round((v / Math.max(total, 1)) * 100) / 100]),
      );
    },
  };
}

/**
 * Starts one `bench/<script>` process per argument list, waits until every one is connected
 * (`ready`), then tells them all `go` at once and collects their results.
 */
export async function runTogether(script: string, argvs: string[][]): Promise<ProcessTimes[]> {
  const children = argvs.map((argv) => {
    const child = spawn(process.execPath, ['--import', 'tsx', benchScriptPath(script), ...argv], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const lines = createInterface({ input: child.stdout });
    let onReady!: () => void;
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    const result = new Promise<ProcessTimes>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line === 'ready') onReady();
        else if (line.startsWith('{')) resolve(JSON.parse(line) as ProcessTimes);
      });
      child.on('close', (code) =>
        reject(new Error(`bench/${script} exited with ${code}:\n${stderr.trim()}`)),
      );
    });
    return { child, ready, result };
  });
  await Promise.race([
    Promise.all(children.map((c) => c.ready)),
    Promise.all(children.map((c) => c.result)),
  ]);
  for (const { child } of children) child.stdin.end('go\n');
  return Promise.all(children.map((c) => c.result));
}
