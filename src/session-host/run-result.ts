import { MaxTurnsExceededError } from '../errors/max-turns-exceeded-error.js';
import { RunCancelledError } from '../errors/run-errors.js';
import { GuardrailTripwireError } from '../errors/guardrail-errors.js';
import { errorFromSerialized } from '../errors/error-from-serialized.js';
import type { AgentStateError } from '../errors/agentstate-error.js';
import type { Item } from '../items/item.js';
import type { InterruptionReason } from '../machines/run-types.js';
import type { RunUsage } from '../machines/run-usage.js';
import type { SubRunSummary } from '../machines/sub-run-types.js';
import { pausedRuns, runState } from '../runs/run-tree.js';
import { callsInDoubt, type InDoubtCall } from '../runs/calls-in-doubt.js';
import { waitingInterruptions } from '../runs/waiting-interruptions.js';
import { runTreeUsage } from '../runs/run-status.js';
import type { Clock } from '../core/clock.js';
import { RunState, runStateData, type Interruption } from '../runs/run-state.js';
import type { SessionHost } from './session-host.js';

/** The outcome of `run`, `stream` or `resume`. */
export interface RunResult<TOutput = string> {
  /** The run's ULID. */
  id: string;
  sessionId: string;
  userId: string | undefined;
  /** The final answer: parsed by `outputType` when the agent has one, else the text. */
  output: TOutput | undefined;
  /** Items this run generated (assistant messages, tool calls and results), oldest first. */
  newItems: Item[];
  turns: number;
  usage: RunUsage;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  interrupted: boolean;
  interruptionReason: InterruptionReason | undefined;
  /**
   * With `interruptionReason: 'error'`: the model call's failure, typed (a `ModelError` keeps
   * `status`, `requestId` and `retryable`). The run is not over: `agent.resume` calls the
   * model again from the last journaled step, `agent.cancel` ends it.
   */
  error?: AgentStateError | undefined;
  /** Tool calls waiting for approval. */
  interruptions: Interruption[];
  /**
   * With `interruptionReason: 'in_doubt'`: the tool calls cut off by a crash that wait for an
   * operator (`agent.resolveInDoubt`).
   */
  callsInDoubt?: InDoubtCall[] | undefined;
  /**
   * The sub-agent runs that ended in this run (children of children included), each with its
   * agent path, usage, turns and output. Their usage is part of `usage`.
   */
  subRuns: SubRunSummary[];
  /** The agent that answered last: the run's own, or the one a handoff gave the run to. */
  lastAgent: string;
  /** Serialisable snapshot of the run, to approve/reject and resume. */
  state: RunState;
}

/**
 * Reads the run's outcome off a settled session: a paused run child (approval, budget, turn
 * limit, failed model call) or the session's last run summary. Failed and cancelled runs throw
 * typed errors; a run stopped by its turn limit throws `MaxTurnsExceededError` carrying its
 * state. A run whose model call failed resolves, interrupted with reason `error` and the typed
 * error in `error`: it is not over, and can be resumed or cancelled.
 */
export function readRunResult<T>(
  host: SessionHost,
  clock: Clock,
  ephemeral: boolean,
): RunResult<T> {
  const { key } = host;
  const run = host.runSnapshot();
  const session = host.context();
  const scope = { sessionId: key.sessionId };
  let base;
  if (run && run.status === 'active') {
    const ctx = run.context;
    // The runs that stand still: the session's run, or sub-agent runs it waits for.
    const paused = pausedRuns(run);
    const waiting = paused.filter((r) => runState(r) === 'awaitingApproval');
    const stopped = paused.find((r) => runState(r) === 'interrupted')?.context;
    base = {
      ...ctx,
      status: 'interrupted' as const,
      interruptionReason: waiting.length ? ('approval' as const) : stopped?.interruption,
      error: stopped?.error ?? ctx.error,
      interruptions: waitingInterruptions(run),
      structured: ctx.structured,
      // What it used so far, its sub-agent runs still in flight (waiting) included.
      usage: runTreeUsage(run),
    };
  } else {
    const last = session.lastRun;
    if (!last) throw new TypeError(`Session "${key.sessionId}" has no run to report`);
    base = {
      ...last,
      interruptionReason: undefined,
      interruptions: [],
    };
  }
  const items = host.log.view(base.historyStart);
  const state = new RunState(
    runStateData(key, base, {
      status: base.status,
      interruptionReason: base.interruptionReason,
      ...(base.interruptionReason === 'error' && base.error ? { error: base.error } : {}),
      items,
      interruptions: base.interruptions,
      guardrails: base.guardrails,
      ...(ephemeral
        ? { session: { record: { ...host.committer.record }, items: host.log.view() } }
        : {}),
    }),
  );
  if (base.status === 'failed' && base.error?.code === 'GUARDRAIL_TRIPWIRE') {
    const tripped = base.guardrails?.find((g) => g.tripwire);
    throw new GuardrailTripwireError(base.error.message, tripped, state, {
      ...scope,
      runId: base.runId,
    });
  }
  if (base.status === 'failed') {
    throw errorFromSerialized(
      base.error ?? { name: 'Error', message: 'run failed', code: 'MODEL_ERROR' },
      {
        ...scope,
        runId: base.runId,
      },
    );
  }
  if (base.status === 'cancelled') throw new RunCancelledError({ ...scope, runId: base.runId });
  if (base.interruptionReason === 'maxTurns') {
    throw new MaxTurnsExceededError(base.maxTurns, state, { ...scope, runId: base.runId });
  }
  return {
    id: base.runId,
    sessionId: key.sessionId,
    userId: key.userId,
    output: (base.structured ?? base.output) as T | undefined,
    newItems: items.slice(base.inputCount),
    turns: base.turn,
    usage: base.usage,
    startedAt: base.startedAt,
    endedAt: clock.now(),
    interrupted: base.status === 'interrupted',
    interruptionReason: base.interruptionReason,
    interruptions: base.interruptions,
    ...(base.interruptionReason === 'in_doubt' && run ? { callsInDoubt: callsInDoubt(run) } : {}),
    ...(base.interruptionReason === 'error' && base.error
      ? { error: errorFromSerialized(base.error, { ...scope, runId: base.runId }) }
      : {}),
    subRuns: base.subRuns ?? [],
    lastAgent: base.activeAgent ?? base.agentName,
    state,
  };
}
