import { z } from 'zod';
import { InvalidSessionRecordError } from '../errors/session-errors.js';
import { WorkflowMismatchError } from '../errors/workflow-errors.js';
import { PersistedSessionSnapshot } from '../machines/schemas/persisted-snapshot-schema.js';
import type { RunMachineContext } from '../machines/run-types.js';
import type { ToolCallOutput } from '../machines/step-actor-io.js';
import * as keys from '../persistence/session-keys.js';
import { checkJournalOutput, firstField } from '../machines/schemas/stored-value-checks.js';
import type {
  JournalEntry,
  SessionKey,
  SessionRecord,
  SessionStore,
} from '../persistence/session-store.js';
import { sessionStatusOf, stateName } from './session-status.js';
import { storedRun, type StoredRun } from './stored-run.js';
import { allRuns } from './run-tree.js';

const sameTotals = (a: SessionRecord['usage'], b: SessionRecord['usage']): boolean =>
  a.turns === b.turns &&
  a.inputTokens === b.inputTokens &&
  a.outputTokens === b.outputTokens &&
  a.costUsd === b.costUsd;

/**
 * Checks a loaded record (brought to this machine version by `upgradeRecord`) as the runtime
 * will use it, before any actor is created: a snapshot matching the machines' schema (contexts, state values and the
 * children a restored state needs), and consistent with the record around it and its key.
 * Throws `InvalidSessionRecordError` naming the record key and the field. Returns the checked
 * snapshot.
 */
export function checkStoredSession(
  key: SessionKey,
  record: SessionRecord,
): PersistedSessionSnapshot {
  // A hosted app machine's instance shares the store, not the session's shape.
  if (record.workflow !== undefined) {
    throw new WorkflowMismatchError(key.sessionId, undefined, record.workflow);
  }
  const recordKey = keys.recordKey(key);
  const scope = { sessionId: key.sessionId };
  const parsed = PersistedSessionSnapshot.safeParse(record.snapshot);
  if (!parsed.success) {
    throw new InvalidSessionRecordError(recordKey, z.prettifyError(parsed.error), {
      ...scope,
      field: `record.snapshot.${firstField(parsed.error)}`,
      cause: parsed.error,
    });
  }
  const snapshot = parsed.data;
  const { context } = snapshot;
  const fail = (field: string, reason: string): never => {
    throw new InvalidSessionRecordError(recordKey, reason, { ...scope, field });
  };
  if (context.sessionId !== key.sessionId || context.userId !== key.userId) {
    fail('record.snapshot.context.sessionId', 'the snapshot belongs to another session');
  }
  if (record.status !== sessionStatusOf(snapshot.value)) {
    fail(
      'record.status',
      `status "${record.status}" disagrees with state ${stateName(snapshot.value)}`,
    );
  }
  if (!sameTotals(record.usage, context.usage)) {
    fail('record.usage', 'the usage totals disagree with the snapshot');
  }
  if (context.historyFrom > record.historyLength) {
    fail('record.snapshot.context.historyFrom', 'points past the end of the history');
  }
  const run = context.currentRun;
  if (run && run.historyStart + run.inputCount > record.historyLength) {
    fail('record.snapshot.context.currentRun.historyStart', 'the run input is not in the history');
  }
  const resultsAt = snapshot.children.run?.snapshot.context.resultsAt;
  if (resultsAt !== undefined && resultsAt > record.historyLength) {
    fail('record.snapshot.children.run.snapshot.context.resultsAt', 'points past the history');
  }
  return snapshot;
}

/**
 * Checks that every journal entry's output has the shape its kind replays (a model answer's
 * usage included: token counts, costs), naming the entry's key: the check the shipped stores
 * run on every read (`checkJournalOutput`), run again for a store that reads otherwise.
 */
function checkJournalOutputs(
  key: SessionKey,
  runId: string,
  entries: readonly JournalEntry[],
): void {
  const scope = { sessionId: key.sessionId, runId };
  for (const entry of entries) {
    checkJournalOutput(keys.journalKey(key, runId, entry.step), entry, scope);
  }
}

/**
 * The journal of run `runId` with every entry's output checked (`checkJournalOutputs`), for
 * whoever reads a run's steps (the export, the inspector), finished runs included.
 */
export async function readCheckedJournal(
  store: SessionStore,
  key: SessionKey,
  runId: string,
): Promise<JournalEntry[]> {
  const entries = await store.readRunJournal(key, runId);
  checkJournalOutputs(key, runId, entries);
  return entries;
}

/**
 * Checks the stored run's journal before anything runs: every entry's output has the shape
 * its kind replays, and every finished call of the current turn has its journaled result while
 * the run is in `tools` (a result waiting for an earlier call is placed from there). Entries of steps
 * the run will never read again may be absent without changing anything; entries of steps in
 * flight may be absent after a crash (the step then runs again, with the same call id).
 * Throws `InvalidSessionRecordError` naming the entry's key.
 */
export function checkRunJournal(
  key: SessionKey,
  run: StoredRun,
  entries: readonly JournalEntry[],
): void {
  const runId = run.context.runId;
  const scope = { sessionId: key.sessionId, runId };
  checkJournalOutputs(key, runId, entries);
  // Only in `tools` can a finished call's result still be waiting to join the history.
  if (run.value !== 'tools' || run.context.resultsAt === undefined) return;
  for (const call of run.context.calls) {
    const entry = entries.find((e) => e.step === call.step);
    if (call.done && !(entry?.output as ToolCallOutput | undefined)?.result) {
      throw new InvalidSessionRecordError(
        keys.journalKey(key, runId, call.step),
        entry
          ? 'the finished call has no journaled result to place in the history'
          : 'journal entry of a finished call is missing',
        { ...scope, ...(entry ? { field: 'output.result' } : {}) },
      );
    }
  }
}

/**
 * The results of a stored run's finished calls, each with the history position the model's
 * call order gives it. After a crash, a finished call's result may be journaled but not yet
 * in the history (it waited for an earlier call): the host places it again.
 */
export function resultsToPlace(
  run: RunMachineContext,
  entries: readonly JournalEntry[],
): { position: number; result: NonNullable<ToolCallOutput['result']> }[] {
  const { resultsAt } = run;
  if (resultsAt === undefined) return [];
  return run.calls.flatMap((call, index) => {
    const entry = entries.find((e) => e.step === call.step && e.kind === 'tool');
    const result = (entry?.output as ToolCallOutput | undefined)?.result;
    return call.done && result ? [{ position: resultsAt + index, result }] : [];
  });
}

/**
 * The journals of a stored session's run and its sub-agent runs, each checked against its run
 * with `checkRunJournal` (none without a stored run).
 */
export async function readRunJournals(
  store: SessionStore,
  key: SessionKey,
  record: SessionRecord,
): Promise<JournalEntry[]> {
  const runs = allRuns(storedRun(record.snapshot)) as StoredRun[];
  const journals = await Promise.all(
    runs.map(async (run) => {
      const entries = await store.readRunJournal(key, run.context.runId);
      checkRunJournal(key, run, entries);
      return entries;
    }),
  );
  return journals.flat();
}
