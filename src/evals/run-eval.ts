import type { Agent } from '../agent/agent.js';
import { systemClock, type Clock } from '../core/clock.js';
import { EvalMismatchError } from '../errors/eval-errors.js';
import { WorkflowNotFoundError } from '../errors/workflow-errors.js';
import type { SessionStore } from '../persistence/session-store.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { instanceKey } from '../workflow-host/instance-key.js';
import { agentFingerprint } from './agent-fingerprint.js';
import { checkRows } from './check-rows.js';
import type { EvalCandidate, EvalTools } from './eval-candidate.js';
import type { EvalDataset } from './eval-dataset.js';
import type { EvalMachineContext, EvalRunMeta } from './eval-machine.js';
import { EvalRowResult, type EvalReport } from './eval-report.js';
import { buildReport } from './eval-report-build.js';
import { evalHost, rowResults } from './eval-runs.js';
import { evaluateRow } from './evaluate-row.js';
import { candidateAgent } from './evaluate-run.js';
import type { Scorer } from './scorer.js';
import { checkScorers } from './score-row.js';

export interface RunEvalOptions {
  /** The eval run's id: its record in `store`. Run again with the same id, it resumes. */
  id: string;
  /** Where the eval run is kept (a store with a message inbox: LevelDB, memory, PostgreSQL). */
  store: SessionStore;
  userId?: string | undefined;
  agent: Agent<unknown>;
  dataset: EvalDataset;
  scorers: readonly Scorer[];
  /** What to try instead of what ran. @default the agent as it is */
  candidate?: EvalCandidate | undefined;
  /** How `run` rows' tools answer. @default 'scripted' */
  tools?: EvalTools | undefined;
  /** Rows evaluated at once. @default 4 */
  concurrency?: number | undefined;
  label?: string | undefined;
  /** Times rows and stamps the report. @default the system clock */
  clock?: Clock | undefined;
  /** Stops the eval run: rows in flight are run again when it is resumed. */
  signal?: AbortSignal | undefined;
}

const NAMES = optionNames<RunEvalOptions>({
  id: true,
  store: true,
  userId: true,
  agent: true,
  dataset: true,
  scorers: true,
  candidate: true,
  tools: true,
  concurrency: true,
  label: true,
  clock: true,
  signal: true,
});

function checkOptions(options: RunEvalOptions): void {
  new OptionChecker('runEval()', options, NAMES)
    .nonEmptyString('id')
    .object('store')
    .nonEmptyString('userId')
    .object('agent')
    .object('dataset')
    .object('candidate')
    .positiveInteger('concurrency')
    .nonEmptyString('label')
    .implements('clock', 'Clock', ['now', 'sleepUntil']);
  if (options.id === undefined || options.store === undefined || options.agent === undefined) {
    throw new TypeError('runEval(): options id, store and agent are required');
  }
  if (!Array.isArray(options.dataset?.rows) || typeof options.dataset.hash !== 'string') {
    throw new TypeError(
      'runEval(): option "dataset" must be an EvalDataset (readDataset, parseDataset)',
    );
  }
  checkScorers('runEval()', options.scorers);
  if (options.tools !== undefined && options.tools !== 'scripted' && options.tools !== 'live') {
    throw new TypeError("runEval(): option \"tools\" must be 'scripted' or 'live'");
  }
}

/** What differs between what an eval run was started with and what it is resumed with. */
function mismatch(stored: EvalRunMeta, now: EvalRunMeta): string | undefined {
  if (stored.dataset.hash !== now.dataset.hash) {
    return `another dataset (hash ${stored.dataset.hash}, not ${now.dataset.hash})`;
  }
  if (stored.agent !== now.agent) return `agent "${stored.agent}", not "${now.agent}"`;
  if (stored.scorers.join(',') !== now.scorers.join(',')) {
    return `scorers ${stored.scorers.join(', ') || 'none'}, not ${now.scorers.join(', ') || 'none'}`;
  }
  return undefined;
}

/**
 * Evaluates every row of `dataset` against `agent` (with the candidate's overrides), scores
 * each with `scorers`, and gives the report. The eval run is itself persisted in `store` as a
 * workflow (`agentstate.eval`): each row a durable step whose journaled output is its result,
 * up to `concurrency` at once. Called again with the same id, it resumes: finished rows are not
 * run again; a finished run gives its report. The rows are checked against the agent first
 * (`checkRows`: `InvalidDatasetError`); the same id with another dataset, agent or scorers is
 * `EvalMismatchError`. Either way nothing is stored.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  checkOptions(options);
  const { id, store, userId, agent, dataset, scorers, signal } = options;
  const clock = options.clock ?? systemClock;
  const candidate = options.candidate ?? {};
  checkRows(dataset, agent);
  signal?.throwIfAborted();
  const evaluated = candidateAgent(agent, candidate);
  const meta: EvalRunMeta = {
    dataset: { name: dataset.name, rows: dataset.rows.length, hash: dataset.hash },
    agent: agent.name,
    fingerprint: (await agentFingerprint(evaluated, agent.name, { userId })) ?? {},
    scorers: scorers.map((s) => (s.version === undefined ? s.name : `${s.name}@${s.version}`)),
    ...(options.label === undefined ? {} : { label: options.label }),
    startedAt: clock.now(),
  };
  const probe = evalHost(store, 1, { clock });
  const existing = await probe
    .get(id, { userId })
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    })
    .finally(() => probe.close());
  const stored = existing?.context as EvalMachineContext | undefined;
  if (stored) {
    const different = mismatch(stored.meta, meta);
    if (different) throw new EvalMismatchError(id, different);
  }
  const lanes =
    stored?.lanes ?? Math.min(options.concurrency ?? 4, Math.max(1, dataset.rows.length));
  const on = { agent, scorers, candidate, tools: options.tools ?? 'scripted', clock };
  const host = evalHost(store, lanes, {
    clock,
    steps: {
      evalRow: {
        idempotent: true,
        run: ({ input, signal: stepSignal }: { input: { index: number }; signal: AbortSignal }) => {
          const row = dataset.rows[input.index]!;
          const both = signal ? AbortSignal.any([signal, stepSignal]) : stepSignal;
          return evaluateRow(row, { ...on, signal: both });
        },
      },
    },
  });
  const stop = () => void host.close();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (!existing) await host.start(id, { userId, input: { meta, lanes } });
    else if (existing.status === 'active') {
      const key = instanceKey(id, userId);
      for (;;) {
        const driven = await host.host.drive(key, id);
        if (driven) {
          await driven.instance.gone;
          break;
        }
        // Another process holds it (its lease is live): wait for it to finish or lapse.
        await clock.sleepUntil(clock.now() + 1_000, signal);
      }
    }
    signal?.throwIfAborted();
    const info = await host.get(id, { userId });
    const context = info.context as EvalMachineContext;
    const results = await rowResults(host, id, userId);
    const order = new Map(dataset.rows.map((r, i) => [r.id, i]));
    results.sort((a, b) => (order.get(a.rowId) ?? 0) - (order.get(b.rowId) ?? 0));
    return buildReport(
      id,
      context.meta,
      results.map((r) => EvalRowResult.parse(r)),
      info.updatedAt,
    );
  } finally {
    signal?.removeEventListener('abort', stop);
    await host.close();
  }
}
