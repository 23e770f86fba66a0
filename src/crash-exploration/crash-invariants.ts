import type { LedgerEntry } from './effect-ledger.js';
import type { Violation } from './crash-report.js';
import { callKey, type Execution } from './execution-probe.js';
import type { ScenarioRunResult } from './scenario-run.js';
import { outcomeDifference } from './scenario-outcome.js';

/** What the exploration knows of a run besides its result: the effects its tools recorded. */
export interface ObservedRun {
  run: ScenarioRunResult;
  effects: readonly LedgerEntry[];
}

/** In-doubt resolutions that ran the call again (its tool's policy allows a second `execute`). */
const RETRIED = new Set(['retried', 'asked, retry']);

/** How many times each call's `execute` finished, by `callKey`. */
const finishedCalls = (executions: readonly Execution[]): Map<string, number> =>
  countBy(
    executions.filter((e) => e.finished),
    (e) => callKey(e.tool, e.callId),
  );

const effectKey = (e: LedgerEntry): string =>
  `${e.callId} ${e.effect} ${JSON.stringify(e.detail ?? null)}`;

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/**
 * The invariants of one crash point against the reference run: no finished effect twice, no
 * call run again unless the runtime retried it as in doubt, no call run without its approval
 * or after its rejection, no approved call lost, and the same final outcome (unless a call in
 * doubt was failed, which its tool's policy documents).
 */
export function checkInvariants(reference: ObservedRun, crashed: ObservedRun): Violation[] {
  const violations: Violation[] = [];
  const add = (kind: Violation['kind'], message: string): void => {
    violations.push({ kind, message });
  };
  const { run } = crashed;
  for (const error of run.errors) add('error', error);
  if (!run.crashed) add('not-reached', 'the run ended before it reached this write');

  // Effects: each finished effect once; each of the reference's present.
  const applied = crashed.effects.filter((e) => !e.repeated);
  for (const [key, n] of countBy(applied, (e) => `${e.callId} ${e.effect}`))
    if (n > 1)
      add(
        'effect-twice',
        `effect "${key.split(' ')[1]}" of call ${key.split(' ')[0]} happened ${n} times`,
      );
  const got = countBy(applied, effectKey);
  const doubted = new Set([...run.inDoubt.keys()].map((k) => k.split(' ')[1]));
  for (const [key, n] of countBy(
    reference.effects.filter((e) => !e.repeated),
    effectKey,
  )) {
    if ((got.get(key) ?? 0) < n && !doubted.has(key.split(' ')[0]))
      add('effect-lost', `effect ${key} of the reference run did not happen`);
  }

  // Executions: approvals kept, nothing run twice unless retried as in doubt.
  for (const e of run.executions) {
    if (e.decision === 'rejected')
      add('ran-without-approval', `call ${e.callId} (${e.tool}) ran after it was rejected`);
    else if (e.decision === undefined && reference.run.decisions.has(callKey(e.tool, e.callId)))
      add('ran-without-approval', `call ${e.callId} (${e.tool}) ran before it was approved`);
  }
  const referenceFinished = finishedCalls(reference.run.executions);
  const finished = finishedCalls(run.executions);
  const named = (key: string): string => {
    const [tool, callId] = key.split(' ');
    return `call ${callId} (${tool})`;
  };
  for (const [key, n] of finished) {
    if (!referenceFinished.has(key))
      add('ran-unexpectedly', `${named(key)} ran; it did not in the reference run`);
    // Run again after a crash: as in doubt with `retry`, or (durability 'run', a model step
    // restarted) an idempotent tool's call, whose claim the effect ledger checks.
    const idempotent = run.executions.some(
      (e) => callKey(e.tool, e.callId) === key && e.idempotent,
    );
    const allowed = RETRIED.has(run.inDoubt.get(key) ?? '') || idempotent ? 2 : 1;
    if (n > allowed)
      add(
        'ran-twice',
        `${named(key)} finished ${n} times${allowed === 1 ? ' (its tool is not idempotent and it was not retried as in doubt)' : ''}`,
      );
  }
  for (const key of referenceFinished.keys()) {
    if (!finished.has(key) && !run.inDoubt.has(key)) {
      const approved = reference.run.decisions.get(key) === 'approved';
      add('call-lost', `${approved ? 'approved ' : ''}${named(key)} never finished`);
    }
  }

  // The outcome: equal, unless a call in doubt was not run again (documented by its policy).
  const documented = [...run.inDoubt.values()].some((how) => !RETRIED.has(how));
  if (reference.run.outcome && run.outcome && !documented) {
    const difference = outcomeDifference(reference.run.outcome, run.outcome);
    if (difference) add('outcome-differs', difference);
  }
  return violations;
}
