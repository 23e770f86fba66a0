import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { benchScriptPath, REPO_ROOT } from './child.js';

/** The PostgreSQL side of the bench (W1 on PostgreSQL, W5): pools, schemas, worker processes. */

/** Every table of a store's schema, emptied (keeping the schema version) for a floor replay. */
export async function emptyTables(url: string, schema: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const tables = ['sessions', 'history', 'journal', 'totals', 'leases', 'decisions'];
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
