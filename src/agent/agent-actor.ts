import type { ActorLogic, ActorScope, AnyActorRef, EventObject } from 'xstate';
import type { AnyActorSystem } from '../actors/journaled-step.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import type { SerializedError } from '../errors/agentstate-error.js';
import { serializeError } from '../errors/agentstate-error.js';
import { errorFromSerialized } from '../errors/error-from-serialized.js';
import type { RunInput } from '../items/item.js';
import type { InterruptionReason, RunUsage, SubRunSummary } from '../machines/run-types.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { jsonCopy } from '../validation/plain-json.js';
import { cancelRun } from '../actions/cancel-run.js';
import { continueRun } from '../actions/continue-run.js';
import { sendMessage } from '../actions/send-message.js';
import { newId } from '../core/new-id.js';
import type { RunResult } from '../session-host/run-result.js';
import { runSnapshotEvents } from '../runs/run-snapshot-events.js';
import type { RunStreamEvent } from './run-stream.js';
import type { ApprovalDecision, Interruption } from '../runs/run-state.js';
import type { ActionObservers } from '../session-host/action-observers.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import type { SessionView } from '../runs/session-view.js';

/** Input of an agent actor: the run's input and where its session lives. */
export interface AgentActorInput {
  input: RunInput;
  /** The session the run goes in (created if new). @default a new ULID per actor */
  sessionId?: string | undefined;
  userId?: string | undefined;
  /** App metadata the run's tools read from `getRunContext().metadata` (plain JSON). */
  metadata?: Record<string, unknown> | undefined;
}

/** The output of an agent actor: its run's outcome, plain JSON. */
export interface AgentActorOutput {
  runId: string;
  sessionId: string;
  userId: string | undefined;
  output: unknown;
  turns: number;
  usage: RunUsage;
  subRuns: SubRunSummary[];
  lastAgent: string;
}

/** Events an agent actor takes: decisions on its pending calls, continue, cancel. */
export type AgentActorEvent =
  | { type: 'agent.approve'; callId: string; always?: boolean; runId?: string }
  | { type: 'agent.reject'; callId: string; message?: string; always?: boolean; runId?: string }
  | { type: 'agent.continue' }
  | { type: 'agent.cancel' };

/**
 * Events it emits: the stream events of the runs it executes, as `agent.stream()` yields them
 * (`actor.on('approval_requested', ...)`); `run_finished` each time its run ends or pauses.
 */
export type AgentActorEmitted = RunStreamEvent<unknown>;

/**
 * What an agent actor keeps in its snapshot (plain JSON, persisted inside the app actor's):
 * where the run stands and what it waits for. The run itself (journal, history) lives in the
 * store, so a restored actor picks it up there without repeating a journaled step.
 */
export interface AgentActorContext {
  sessionId: string;
  userId?: string | undefined;
  input: RunInput;
  metadata?: Record<string, unknown> | undefined;
  /** Epoch ms the actor was created: a run of its session that started later is its own. */
  createdAt: number;
  /** `running` while the run executes (or must be picked up after a restore). */
  phase: 'running' | 'awaitingApproval' | 'interrupted';
  runId?: string | undefined;
  interruptionReason?: InterruptionReason | undefined;
  /** The calls waiting for a decision (send `agent.approve` / `agent.reject`). */
  interruptions: Interruption[];
  /** Decisions not yet applied to the stored run. */
  decisions: ApprovalDecision[];
  /** The pending action is a cancel. */
  cancelling?: boolean | undefined;
  error?: SerializedError | undefined;
}

/** The snapshot of an agent actor. */
export type AgentActorSnapshot =
  | { status: 'active'; output: undefined; error: undefined; context: AgentActorContext }
  | { status: 'done'; output: AgentActorOutput; error: undefined; context: AgentActorContext }
  | { status: 'error'; output: undefined; error: unknown; context: AgentActorContext }
  | { status: 'stopped'; output: undefined; error: undefined; context: AgentActorContext };

/** Internal events: the work of the actor settled. */
type Outcome =
  | { type: 'agentstate.result'; result: RunSettled }
  | { type: 'agentstate.failed'; error: SerializedError };
type Settled =
  | Outcome
  | { type: 'agentstate.run'; runId: string }
  /** A restored paused actor found its run ended elsewhere (moot once it runs again). */
  | { type: 'agentstate.ended'; outcome: Outcome };

type RunSettled =
  | { kind: 'done'; output: AgentActorOutput }
  | {
      kind: 'paused';
      runId: string;
      reason: InterruptionReason | undefined;
      interruptions: Interruption[];
    };

/** The actor logic `agent.asActor()` returns. */
export type AgentActorLogic = ActorLogic<
  AgentActorSnapshot,
  AgentActorEvent,
  AgentActorInput,
  AnyActorSystem,
  AgentActorEmitted
>;

/** What the agent actor needs of its agent. */
export interface AgentActorSource {
  readonly name: string;
  runtimeFor(store: SessionStore): SessionRuntime;
}

type Scope = ActorScope<AgentActorSnapshot, AgentActorEvent, AnyActorSystem, AgentActorEmitted>;

/**
 * An agent run as XState actor logic, for an app's own machine to `invoke` or `spawn`: its
 * input is the run's input, its output the run's outcome, and it emits the run's stream
 * events. Its snapshot (plain JSON) nests in the app actor's persisted snapshot; the run's
 * steps are journaled in `store`, so restoring the app actor (in any process) picks the run up
 * without repeating a journaled step. A run waiting for an approval shows its calls on the
 * snapshot (`context.interruptions`); send `agent.approve` / `agent.reject` to decide.
 */
export function agentActorLogic(
  agent: AgentActorSource,
  store: SessionStore,
  clock: { now(): number },
): ActorLogic<
  AgentActorSnapshot,
  AgentActorEvent,
  AgentActorInput,
  AnyActorSystem,
  AgentActorEmitted
> {
  const runtime = (): SessionRuntime => agent.runtimeFor(store);
  const keyOf = (c: AgentActorContext): SessionKey => ({
    sessionId: c.sessionId,
    userId: c.userId,
  });

  /** Sends the actor one of its internal events, unless it has ended. */
  const relayTo =
    ({ self }: Scope) =>
    (event: Settled): void => {
      if (self.getSnapshot().status === 'active') (self as AnyActorRef).send(event);
    };
  const failed = (error: unknown): Outcome => ({
    type: 'agentstate.failed',
    error: serializeError(error, 'MODEL_ERROR'),
  });

  /** Starts the work the context asks for, emits its stream events and reports how it settled. */
  function work(context: AgentActorContext, scope: Scope): void {
    const { emit } = scope;
    const relay = relayTo(scope);
    const events = runSnapshotEvents(emit);
    const onRunSnapshot = (snapshot: RunSnapshot): void => {
      events(snapshot);
      if (!context.runId) relay({ type: 'agentstate.run', runId: snapshot.context.runId });
    };
    const observers = { progress: emit, onRunSnapshot };
    run(context, observers).then(
      (result) => {
        if (result.kind !== 'ended') emit({ type: 'run_finished', result: result.result });
        relay({ type: 'agentstate.result', result: result.settled });
      },
      (error: unknown) => relay(failed(error)),
    );
  }

  /**
   * A restored actor that waits (an approval, a turn limit, a failed model call) reads its
   * stored run: one that ended while nobody watched (approved and resumed from the CLI,
   * cancelled) settles it.
   */
  function check(context: AgentActorContext, scope: Scope): void {
    const relay = relayTo(scope);
    storedSession(context)
      .then((view) => (view?.run ? undefined : endedRun(view, context)))
      .then(
        (result) => {
          if (!result) return;
          relay({ type: 'agentstate.ended', outcome: { type: 'agentstate.result', result } });
        },
        (error: unknown) => relay({ type: 'agentstate.ended', outcome: failed(error) }),
      );
  }

  /** The stored session of the actor's run (`undefined` if there is none yet). */
  function storedSession(context: AgentActorContext): Promise<SessionView | undefined> {
    return runtime()
      .getSession(keyOf(context))
      .catch((error: unknown) => {
        if (error instanceof SessionNotFoundError) return undefined;
        throw error;
      });
  }

  /**
   * The outcome of the actor's run if it ended while nobody watched (the app's snapshot was
   * taken before the end); a failed or cancelled run throws its typed error.
   */
  function endedRun(
    view: SessionView | undefined,
    context: AgentActorContext,
  ): RunSettled | undefined {
    const last = view?.lastRun;
    if (!last || (last.runId !== context.runId && last.startedAt < context.createdAt)) {
      return undefined;
    }
    if (last.status !== 'completed') {
      throw errorFromSerialized(
        last.error ?? { name: 'RunCancelledError', code: 'RUN_CANCELLED', message: last.status },
      );
    }
    return {
      kind: 'done',
      output: {
        runId: last.runId,
        sessionId: context.sessionId,
        userId: context.userId,
        output: last.structured ?? last.output,
        turns: last.turn,
        usage: last.usage,
        subRuns: last.subRuns ?? [],
        lastAgent: last.activeAgent ?? last.agentName,
      },
    };
  }

  /** Runs what the context asks for: cancel, go on with the stored run, or a new message. */
  async function run(
    context: AgentActorContext,
    observers: Pick<ActionObservers, 'progress' | 'onRunSnapshot'>,
  ): Promise<Worked> {
    const key = keyOf(context);
    if (context.cancelling) {
      await runtime().execute(key, cancelRun());
      throw errorFromSerialized({
        name: 'RunCancelledError',
        code: 'RUN_CANCELLED',
        message: 'The run was cancelled',
      });
    }
    const view = await storedSession(context);
    if (view?.run) {
      // Ours, paused or stopped by a crash: go on from the journal, with the decisions taken
      // (already applied if a crash came after they were saved: then without them).
      const decisions = context.decisions;
      try {
        return ran(await runtime().execute(key, continueRun({ ...observers, decisions })));
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (!decisions.length || (code !== 'STALE_DECISION' && code !== 'UNKNOWN_CALL'))
          throw error;
        return ran(await runtime().execute(key, continueRun(observers)));
      }
    }
    const ended = endedRun(view, context);
    if (ended) return { kind: 'ended', settled: ended };
    const message = sendMessage(context.input, {
      ...observers,
      ...(context.metadata ? { metadata: context.metadata } : {}),
    });
    return ran(await runtime().execute(key, message));
  }

  return {
    config: agent,
    getInitialSnapshot: (_scope, input) => ({
      status: 'active',
      output: undefined,
      error: undefined,
      context: {
        sessionId: input.sessionId ?? newId(),
        ...(input.userId === undefined ? {} : { userId: input.userId }),
        input: jsonCopy(input.input),
        ...(input.metadata ? { metadata: jsonCopy(input.metadata) } : {}),
        createdAt: clock.now(),
        phase: 'running',
        interruptions: [],
        decisions: [],
      },
    }),
    start: (snapshot, scope) => {
      if (snapshot.status !== 'active') return;
      if (snapshot.context.phase === 'running') work(snapshot.context, scope);
      else check(snapshot.context, scope);
    },
    transition: (snapshot, event, scope) => {
      if (snapshot.status !== 'active') return snapshot;
      const context = snapshot.context;
      let e = event as AgentActorEvent | Settled | EventObject;
      if (e.type === 'agentstate.ended') {
        // Moot once the actor runs again: it was sent a decision first.
        if (context.phase === 'running') return snapshot;
        e = (e as { outcome: Outcome }).outcome;
      }
      const goOn = (next: AgentActorContext): AgentActorSnapshot => {
        scope.defer(() => work(next, scope));
        return { ...snapshot, context: next };
      };
      switch (e.type) {
        case 'agentstate.run':
          return { ...snapshot, context: { ...context, runId: (e as { runId: string }).runId } };
        case 'agentstate.result': {
          const result = (e as { result: RunSettled }).result;
          if (result.kind === 'done') {
            return { status: 'done', output: result.output, error: undefined, context };
          }
          return {
            ...snapshot,
            context: {
              ...context,
              runId: result.runId,
              phase: result.reason === 'approval' ? 'awaitingApproval' : 'interrupted',
              interruptionReason: result.reason,
              interruptions: result.interruptions,
              decisions: [],
              cancelling: undefined,
            },
          };
        }
        case 'agentstate.failed': {
          const error = (e as { error: SerializedError }).error;
          return {
            status: 'error',
            output: undefined,
            error: errorFromSerialized(error, { sessionId: context.sessionId }),
            context: { ...context, error },
          };
        }
        case 'agent.approve':
        case 'agent.reject': {
          if (context.phase !== 'awaitingApproval') return snapshot;
          const d = e as Extract<AgentActorEvent, { type: 'agent.approve' | 'agent.reject' }>;
          const pending = context.interruptions.find(
            (i) => i.callId === d.callId && (d.runId === undefined || i.runId === d.runId),
          );
          if (!pending) return snapshot;
          const decision: ApprovalDecision = {
            callId: d.callId,
            approve: d.type === 'agent.approve',
            ...(d.always === undefined ? {} : { always: d.always }),
            ...('message' in d && d.message !== undefined ? { message: d.message } : {}),
            ...(pending.runId === undefined ? {} : { runId: pending.runId }),
            ...(pending.fingerprint === undefined ? {} : { fingerprint: pending.fingerprint }),
          };
          const decisions = [...context.decisions, decision];
          const waiting = context.interruptions.filter((i) => i !== pending);
          // Decide every pending call first; the run goes on once none is left.
          if (waiting.length)
            return { ...snapshot, context: { ...context, decisions, interruptions: waiting } };
          return goOn({ ...context, decisions, interruptions: [], phase: 'running' });
        }
        case 'agent.continue':
          if (context.phase !== 'interrupted') return snapshot;
          return goOn({ ...context, phase: 'running', interruptionReason: undefined });
        case 'agent.cancel':
          if (context.phase === 'running') return snapshot;
          return goOn({ ...context, phase: 'running', cancelling: true, interruptions: [] });
        default:
          return snapshot;
      }
    },
    getPersistedSnapshot: (snapshot) => {
      const { status, output, context } = snapshot;
      return {
        status,
        output,
        error: context.error,
        context,
      } as never;
    },
    restoreSnapshot: (persisted) => persisted as AgentActorSnapshot,
  };
}

/** What the actor's work came to: a run it ran (to its end or a pause), or one ended before. */
type Worked =
  | { kind: 'ran'; result: RunResult<unknown>; settled: RunSettled }
  | { kind: 'ended'; settled: RunSettled };

function ran(result: RunResult<unknown>): Worked {
  return { kind: 'ran', result, settled: settled(result) };
}

/** How an action's result settles the actor: done, or paused with what it waits for. */
function settled(result: RunResult<unknown>): RunSettled {
  if (result.interrupted) {
    return {
      kind: 'paused',
      runId: result.id,
      reason: result.interruptionReason,
      interruptions: result.interruptions,
    };
  }
  return {
    kind: 'done',
    output: {
      runId: result.id,
      sessionId: result.sessionId,
      userId: result.userId,
      output: result.output,
      turns: result.turns,
      usage: result.usage,
      subRuns: result.subRuns,
      lastAgent: result.lastAgent,
    },
  };
}
