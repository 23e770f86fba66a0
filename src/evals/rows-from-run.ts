import type { Agent } from '../agent/agent.js';
import { systemClock, type Clock } from '../core/clock.js';
import { readDefinition } from '../definition/definition-fingerprint.js';
import { InvalidDatasetError } from '../errors/eval-errors.js';
import { UserMessageItem } from '../items/item.js';
import type { ModelStepOutput, ToolCallOutput } from '../machines/step-actor-io.js';
import type { JournalEntry, SessionKey, SessionStore } from '../persistence/session-store.js';
import { exportReplay } from '../recovery/export-replay.js';
import {
  definitionOf,
  exactModelRequest,
  runParents,
  sentItems,
} from '../recovery/model-request-rebuild.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { agentFingerprint } from './agent-fingerprint.js';
import { EVAL_ROW_FORMAT, EVAL_ROW_VERSION, EvalModelRequest, type EvalRow } from './eval-row.js';
import { decisionsOf, runOutcome, stepOutcome } from './recorded-outcome.js';
import { trajectoryOf } from './trajectory.js';

/** Which rows `rowsFromRun` makes of a run. */
export interface RowsFromRunOptions {
  /** The run: the session's current or last run (only these keep their journal). @default the current, else the last */
  runId?: string | undefined;
  /**
   * `run`: one row for the whole run; `model-steps`: one row per model step of the run and its
   * sub-agent runs; step numbers: those model steps of the run.
   * @default 'run'
   */
  steps?: 'run' | 'model-steps' | readonly number[] | undefined;
  /** The rows' ids start with it. @default `<sessionId>-<runId>` */
  idPrefix?: string | undefined;
  tags?: readonly string[] | undefined;
  /** Stamps `source.capturedAt`. @default the system clock */
  clock?: Clock | undefined;
}

const NAMES = optionNames<RowsFromRunOptions>({
  runId: true,
  steps: true,
  idPrefix: true,
  tags: true,
  clock: true,
});

/** Where the rows come from: the store the session is in, and the agent that ran it. */
export interface RowsSource {
  store: SessionStore;
  agent: Agent<unknown>;
}

/**
 * Eval rows built from a stored run of a session: the whole run (`kind: 'run'`: its input, the
 * approvals as decided, the replay, what it did) or its model steps (`kind: 'step'`: the exact
 * request the model received, the tool results that followed, the answer), each pinned to the
 * definition fingerprint of its agent. Reads only; what the store holds was scrubbed by the
 * agent's `redact` already. Only the session's current or last run keeps its journal: another
 * run id is `RunNotFoundError`; a step that is not a model step, or one journaled before
 * agentstate recorded requests, is `InvalidDatasetError`.
 */
export async function rowsFromRun(
  source: RowsSource,
  target: { sessionId: string; userId?: string | undefined },
  options: RowsFromRunOptions = {},
): Promise<EvalRow[]> {
  new OptionChecker('rowsFromRun()', options, NAMES)
    .nonEmptyString('runId')
    .nonEmptyString('idPrefix')
    .implements('clock', 'Clock', ['now']);
  const { steps = 'run' } = options;
  if (
    steps !== 'run' &&
    steps !== 'model-steps' &&
    !(Array.isArray(steps) && steps.every((n) => Number.isInteger(n) && n >= 0))
  ) {
    throw new TypeError(
      "rowsFromRun(): options.steps must be 'run', 'model-steps' or an array of step numbers",
    );
  }
  if (options.tags !== undefined && !options.tags.every((t) => typeof t === 'string')) {
    throw new TypeError('rowsFromRun(): options.tags must be an array of strings');
  }
  if (typeof target?.sessionId !== 'string' || target.sessionId.length === 0) {
    throw new TypeError('rowsFromRun(): sessionId must be a non-empty string');
  }
  const { store, agent } = source;
  const key: SessionKey = { sessionId: target.sessionId, userId: target.userId };
  const runtime = agent.runtimeFor(store);
  const replay = await exportReplay(runtime, key, {
    ...(options.runId === undefined ? {} : { runId: options.runId }),
  });
  const runId = replay.run.runId;
  const view = await runtime.getSession(key);
  const capturedAt = (options.clock ?? systemClock).now();
  const prefix = options.idPrefix ?? `${target.sessionId}-${runId}`;
  const base = {
    format: EVAL_ROW_FORMAT,
    version: EVAL_ROW_VERSION,
    ...(options.tags?.length ? { tags: [...options.tags] } : {}),
  } as const;
  const sourceOf = (step?: number) => ({
    sessionId: target.sessionId,
    ...(target.userId === undefined ? {} : { userId: target.userId }),
    runId,
    ...(step === undefined ? {} : { step }),
    capturedAt,
  });
  const journals = new Map<string, JournalEntry[]>();
  for (const run of replay.runs) {
    journals.set(run.runId, await readCheckedJournal(store, key, run.runId));
  }
  if (steps === 'run') {
    const current = view.run?.context.runId === runId ? view.run.context : undefined;
    const stored = current?.definition ? readDefinition(current.definition) : undefined;
    const fingerprint = stored ?? (await fingerprintOf(agent, replay.run.agentName, key, prefix));
    const last = view.lastRun?.runId === runId ? view.lastRun : undefined;
    const row: EvalRow = {
      ...base,
      id: prefix,
      agent: replay.run.agentName,
      fingerprint,
      kind: 'run',
      source: sourceOf(),
      input: replay.run.input.flatMap((item) => {
        const user = UserMessageItem.safeParse(item);
        return user.success ? [user.data] : [];
      }),
      decisions: decisionsOf(replay, journals),
      replay,
      recorded: runOutcome(replay, last, trajectoryOf(replay)),
    };
    return [row];
  }
  const parents = await runParents(store, key, runId);
  const wanted = replay.runs.flatMap((run) =>
    run.runId !== runId && Array.isArray(steps) ? [] : [run],
  );
  const rows: EvalRow[] = [];
  const fingerprints = new Map<string, Promise<Record<string, string>>>();
  for (const run of wanted) {
    const journal = journals.get(run.runId) ?? [];
    const models = journal.filter((e) => e.kind === 'model');
    if (Array.isArray(steps)) {
      for (const n of steps) {
        const entry = journal.find((e) => e.step === n);
        if (!entry || entry.kind !== 'model') {
          throw new InvalidDatasetError(
            { path: 'steps' },
            `run "${runId}" has no model step ${n}${entry ? ` (step ${n} is a ${entry.kind} step)` : ''}`,
          );
        }
      }
    }
    const chosen = Array.isArray(steps) ? models.filter((e) => steps.includes(e.step)) : models;
    for (const entry of chosen) {
      const id =
        run.runId === runId ? `${prefix}-s${entry.step}` : `${prefix}-${run.runId}-s${entry.step}`;
      const out = entry.output as ModelStepOutput;
      const facts = out.request;
      if (!facts) {
        throw new InvalidDatasetError(
          { rowId: id },
          `model step ${entry.step} of run "${run.runId}" was journaled without its request`,
        );
      }
      const options = definitionOf([agent], facts.agent);
      if (!options) {
        throw new InvalidDatasetError(
          { rowId: id },
          `agent "${facts.agent}" of step ${entry.step} is not in the tree of agent "${agent.name}"`,
        );
      }
      const sent = await sentItems(
        store,
        key,
        { facts, journal, step: entry.step, runId: run.runId },
        parents.get(run.runId),
      );
      const { request, missing } = exactModelRequest(facts, sent.items, options);
      if (missing.length > 0) {
        throw new InvalidDatasetError(
          { rowId: id },
          `agent "${facts.agent}" has no tool "${missing[0]}" (offered at step ${entry.step})`,
        );
      }
      const calls = new Set(out.toolCalls.map((c) => c.callId));
      const after = journal.flatMap((e) => {
        if (e.kind !== 'tool') return [];
        const result = e.output as ToolCallOutput;
        if (!calls.has(result.callId)) return [];
        return [
          {
            callId: result.callId,
            name: result.result?.name ?? '',
            output: result.result?.output ?? '',
            isError: result.isError,
          },
        ];
      });
      let fingerprint = fingerprints.get(facts.agent);
      if (!fingerprint) {
        fingerprint = fingerprintOf(agent, facts.agent, key, id);
        fingerprints.set(facts.agent, fingerprint);
      }
      rows.push({
        ...base,
        id,
        agent: facts.agent,
        fingerprint: await fingerprint,
        kind: 'step',
        source: sourceOf(entry.step),
        request: EvalModelRequest.parse(JSON.parse(JSON.stringify(request))),
        after,
        recorded: stepOutcome(facts.agent, out),
      });
    }
  }
  return rows;
}

async function fingerprintOf(
  agent: Agent<unknown>,
  name: string,
  key: SessionKey,
  rowId: string,
): Promise<Record<string, string>> {
  const found = await agentFingerprint(agent, name, key);
  if (!found) {
    throw new InvalidDatasetError(
      { rowId },
      `agent "${name}" is not in the tree of agent "${agent.name}"`,
    );
  }
  return found;
}
