import { NothingToResumeError } from '../errors/session-errors.js';
import { CallNotInDoubtError } from '../errors/run-errors.js';
import { askingOperator } from '../machines/calls-in-doubt.js';
import type { InDoubtAction } from '../items/in-doubt-record.js';
import type { AuditVia } from '../persistence/audit-log.js';
import type { SessionKey } from '../persistence/session-store.js';
import { pausedRuns, runChain, runState, type RunNode } from '../runs/run-tree.js';
import { storedRun } from '../runs/stored-run.js';
import type { RunLike } from '../runs/run-activity.js';
import { describeSession } from '../runs/session-view.js';
import { readRunResult, type RunResult } from '../session-host/run-result.js';
import { OptionChecker, describeValue } from '../validation/option-checks.js';
import { isPlainJson } from '../validation/plain-json.js';
import { currentBudget } from './send-message.js';
import type { RunActionOptions } from './run-options.js';
import type { ActionContext, SessionAction } from './session-action.js';

/**
 * An operator's resolution of a tool call in doubt (a call cut off by a crash whose tool has
 * `onInterrupted: 'ask'`): `'retry'` runs it again with the same call id, `'result'` records
 * `result` (plain JSON, rendered like `execute`'s return value) as its output without running
 * it, `'fail'` gives the model the unknown-outcome error. `runId` names the run that waits
 * (a sub-agent's); omitted: the one holding the call.
 */
export type InDoubtResolution =
  | { callId: string; action: 'retry'; runId?: string | undefined }
  | { callId: string; action: 'result'; result: unknown; runId?: string | undefined }
  | { callId: string; action: 'fail'; runId?: string | undefined };

/** Options of `resolveInDoubt` (the session action): a resume's, who resolved, `hold`. */
export interface ResolveInDoubtActionOptions extends Omit<RunActionOptions, 'modelSettings'> {
  /** Who resolved the call, for the audit log. */
  by?: string | undefined;
  /** Through which path it came. @default 'api' */
  via?: AuditVia | undefined;
  /**
   * Record the resolution only (the command line, which has no tools): the run stays paused
   * until the app resumes it (`agent.resume`), which applies it. @default false
   */
  hold?: boolean | undefined;
}

const ACTIONS: readonly InDoubtAction[] = ['retry', 'result', 'fail'];

/** Checks a resolution's shape at the call (`TypeError` naming the field). */
export function checkInDoubtResolution(call: string, resolution: unknown): InDoubtResolution {
  const checker = new OptionChecker(
    call,
    resolution,
    ['callId', 'action', 'result', 'runId'],
    'resolution',
  );
  checker
    .nonEmptyString('callId', true)
    .check(
      'action',
      "'retry', 'result' or 'fail'",
      (v) => ACTIONS.includes(v as InDoubtAction),
      true,
    )
    .nonEmptyString('runId');
  const r = resolution as InDoubtResolution & { result?: unknown };
  if (r.action === 'result') {
    if (r.result === undefined || !isPlainJson(r.result)) {
      throw new TypeError(
        `${call}: resolution.result must be plain JSON (the call's output), got ${describeValue(r.result)}`,
      );
    }
  } else if ('result' in r && r.result !== undefined) {
    throw new TypeError(`${call}: resolution.result is only for action 'result'`);
  }
  return r;
}

/**
 * The run of the tree under `root` that waits for an operator on call `callId` (the one
 * `runId` names, else the one holding it), or `CallNotInDoubtError` saying why none does.
 */
export function runInDoubt(key: SessionKey, root: RunNode, r: InDoubtResolution): string {
  const scope = { sessionId: key.sessionId, runId: root.context?.runId };
  const waiting = (run: RunNode) =>
    runState(run) === 'interrupted' && run.context?.interruption === 'in_doubt';
  const candidates =
    r.runId === undefined
      ? pausedRuns(root).filter(waiting)
      : runChain(root, r.runId)
          .slice(-1)
          .filter((run) => run.context?.runId === r.runId);
  if (candidates.length === 0) {
    const reason =
      r.runId !== undefined && runChain(root, r.runId).length === 0
        ? `run ${r.runId} is not the session's run nor one of its sub-agent runs`
        : `the run is not paused in doubt (${root.context?.interruption ?? runState(root)})`;
    throw new CallNotInDoubtError(r.callId, reason, scope);
  }
  const holder = candidates.find(
    (run) =>
      waiting(run) && run.context?.calls.some((c) => c.callId === r.callId && askingOperator(c)),
  );
  if (!holder?.context) {
    const reason = candidates.some(waiting)
      ? 'the run waits on other calls in doubt'
      : `run ${r.runId} is not paused in doubt`;
    throw new CallNotInDoubtError(r.callId, reason, scope);
  }
  return holder.context.runId;
}

/** Audits the resolution and sends it to the run that waits on the call. */
function sendResolution(
  ctx: ActionContext,
  r: InDoubtResolution,
  options: ResolveInDoubtActionOptions,
): void {
  const { host, key, clock } = ctx;
  const run = host.runSnapshot();
  if (!run || run.status !== 'active')
    throw new NothingToResumeError(key.sessionId, host.stateName());
  const runId = runInDoubt(key, run, r);
  host.log.audit([ctx.audit.inDoubt(run, { ...r, runId }, options)]);
  const result = r.action === 'result' ? { result: r.result } : {};
  const resolution = {
    action: r.action,
    at: clock.now(),
    ...(options.by === undefined ? {} : { by: options.by }),
    ...result,
  };
  host.send(
    {
      type: 'RESOLVE_IN_DOUBT',
      callId: r.callId,
      runId,
      resolution,
      ...(options.hold ? { hold: true } : {}),
    },
    'resolveInDoubt',
  );
}

/**
 * Resolves a call in doubt the session's run waits on (see `InDoubtResolution`), checked
 * against the stored run before anything is loaded: a session without a paused run is
 * `NothingToResumeError`, a call that does not wait for an operator `CallNotInDoubtError`
 * (nothing changes). Then, unless `hold`, the run goes on: the call runs again or takes its
 * result, and the model continues. The resolution is audited (kind `in_doubt`) and journaled
 * in the call's entry (`inDoubt.operator`).
 */
export function resolveInDoubt<T = string>(
  resolution: InDoubtResolution,
  options: ResolveInDoubtActionOptions = {},
): SessionAction<RunResult<T> | undefined> {
  const hold = options.hold === true;
  return {
    name: 'resolveInDoubt',
    runs: !hold,
    continuesRun: !hold,
    observe: options,
    check({ key, record }) {
      const run = storedRun<RunLike>(record.snapshot);
      if (run?.status !== 'active' || run.value === undefined || !run.context) {
        throw new NothingToResumeError(key.sessionId, describeSession(record).state);
      }
      runInDoubt(key, run, resolution);
    },
    async apply(ctx) {
      const before = ctx.host.runSnapshot();
      const held = before ? pausedRuns(before).some((r) => r.context?.held === true) : false;
      sendResolution(ctx, resolution, options);
      if (hold) {
        await ctx.host.committer.flush();
        return undefined;
      }
      // Resolutions recorded elsewhere (`hold`) wait for a resume: this one goes on with them.
      if (held) {
        ctx.host.send(
          { type: 'CONTINUE', maxTurns: options.maxTurns, budget: currentBudget(ctx) },
          'resume',
        );
      }
      await ctx.host.settle();
      return readRunResult<T>(ctx.host, ctx.clock, options.ephemeral === true);
    },
  };
}
