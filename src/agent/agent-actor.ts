import type { ActorLogic, ActorScope, AnyActorRef, EventObject } from 'xstate';
import type { AnyActorSystem } from '../actors/journaled-step.js';
import type { SerializedError } from '../errors/agentstate-error.js';
import { serializeError } from '../errors/agentstate-error.js';
import { errorFromSerialized } from '../errors/error-from-serialized.js';
import type { SessionStore } from '../persistence/session-store.js';
import { jsonCopy } from '../validation/plain-json.js';
import { newId } from '../core/new-id.js';
import { runSnapshotEvents } from '../runs/run-snapshot-events.js';
import type { ApprovalDecision } from '../runs/run-state.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import type {
  AgentActorContext,
  AgentActorEmitted,
  AgentActorEvent,
  AgentActorInput,
  AgentActorSnapshot,
  AgentActorSource,
  RunSettled,
} from './agent-actor-types.js';
import { AgentActorWork, endedRun } from './agent-actor-work.js';

/** Internal events: the work of the actor settled. */
type Outcome =
  | { type: 'agentstate.result'; result: RunSettled }
  | { type: 'agentstate.failed'; error: SerializedError };
type Settled =
  | Outcome
  | { type: 'agentstate.run'; runId: string }
  /** A restored paused actor found its run ended elsewhere (moot once it runs again). */
  | { type: 'agentstate.ended'; outcome: Outcome };

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
  const runs = new AgentActorWork(() => agent.runtimeFor(store));

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
    runs.run(context, observers).then(
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
    runs
      .storedSession(context)
      .then((view) => (view?.run ? undefined : endedRun(view, context)))
      .then(
        (result) => {
          if (!result) return;
          relay({ type: 'agentstate.ended', outcome: { type: 'agentstate.result', result } });
        },
        (error: unknown) => relay({ type: 'agentstate.ended', outcome: failed(error) }),
      );
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
