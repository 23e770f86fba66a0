import { systemClock, type Clock } from '../core/clock.js';
import { InvalidEvalReportError } from '../errors/eval-errors.js';
import type { WorkflowStepOutput } from '../machines/schemas/workflow-journal.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { Workflows } from '../workflows/workflows.js';
import { workflows } from '../workflows/workflows.js';
import { EvalRowResult, type EvalReport } from './eval-report.js';
import { buildReport } from './eval-report-build.js';
import { EVAL_WORKFLOW, evalMachine, type EvalMachineContext } from './eval-machine.js';
import type { StepSource } from '../workflow-host/step-definition.js';

/** The host of eval runs in `store`, its machine with `lanes` rows at once. */
export function evalHost(
  store: SessionStore,
  lanes: number,
  options: { clock?: Clock | undefined; steps?: Record<string, StepSource> } = {},
): Workflows<ReturnType<typeof evalMachine>> {
  return workflows(evalMachine(lanes), {
    name: EVAL_WORKFLOW,
    store,
    clock: options.clock ?? systemClock,
    steps: options.steps ?? {
      evalRow: {
        run: () => {
          throw new Error('eval rows run only under runEval');
        },
      },
    },
  });
}

/** The row results an eval run's step journal holds, in the order they finished. */
export async function rowResults(
  host: Workflows<ReturnType<typeof evalMachine>>,
  evalId: string,
  userId: string | undefined,
): Promise<EvalRowResult[]> {
  const journal = await host.journal(evalId, { userId });
  const seen = new Set<string>();
  const rows: EvalRowResult[] = [];
  for (const entry of journal) {
    if (entry.kind !== 'step') continue;
    const out = entry.output as WorkflowStepOutput;
    if (out.outcome !== 'done') continue;
    const row = EvalRowResult.safeParse(out.output);
    if (!row.success || seen.has(row.data.rowId)) continue;
    seen.add(row.data.rowId);
    rows.push(row.data);
  }
  return rows;
}

/**
 * The report of eval run `evalId` in `store`, from its record and step journal: a finished run's,
 * or with `partial: true` an unfinished one's (the rows done so far). An unfinished run without
 * `partial` is `InvalidEvalReportError`; an unknown id, `WorkflowNotFoundError`.
 */
export async function readEvalReport(
  store: SessionStore,
  evalId: string,
  options: { userId?: string | undefined; partial?: boolean | undefined } = {},
): Promise<EvalReport> {
  const host = evalHost(store, 1);
  try {
    const info = await host.get(evalId, { userId: options.userId });
    const context = info.context as EvalMachineContext;
    if (info.status !== 'completed' && options.partial !== true) {
      throw new InvalidEvalReportError(
        '',
        `eval run "${evalId}" is not finished (${context.done} of ${context.meta.dataset.rows} rows): read it with partial: true`,
      );
    }
    return buildReport(
      evalId,
      context.meta,
      await rowResults(host, evalId, options.userId),
      info.updatedAt,
    );
  } finally {
    await host.close();
  }
}

/** One eval run as `listEvalRuns` lists it. */
export interface EvalRunSummary {
  evalId: string;
  status: string;
  agent: string;
  dataset: { name: string; rows: number; hash: string };
  label?: string | undefined;
  done: number;
  passed: number;
  errored: number;
  startedAt: number;
  updatedAt: number;
}

/** The eval runs of one user in `store`, newest first (for the inspector and the CLI). */
export async function listEvalRuns(
  store: SessionStore,
  options: { userId?: string | undefined } = {},
): Promise<EvalRunSummary[]> {
  const host = evalHost(store, 1);
  try {
    const out: EvalRunSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = await host.list({ userId: options.userId, cursor, order: 'updated' });
      for (const summary of page.workflows) {
        const info = await host.get(summary.id, { userId: options.userId });
        const context = info.context as EvalMachineContext;
        out.push({
          evalId: summary.id,
          status: summary.status,
          agent: context.meta.agent,
          dataset: context.meta.dataset,
          ...(context.meta.label === undefined ? {} : { label: context.meta.label }),
          done: context.done,
          passed: context.passed,
          errored: context.errored,
          startedAt: context.meta.startedAt,
          updatedAt: summary.updatedAt,
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return out.sort((a, b) => b.updatedAt - a.updatedAt);
  } finally {
    await host.close();
  }
}
