import { createActor, type InspectionEvent } from 'xstate';
import type { AgentDeps } from '../actors/agent-deps.js';
import { approvalCheck, type ApprovalCheckDeps } from '../actors/approval-check.js';
import { durableTimer } from '../actors/durable-timer.js';
import { guardrailCheck, type GuardrailCheckDeps } from '../actors/guardrail-check.js';
import type { AnyActorSystem, DepsOf, JournaledStepDeps } from '../actors/journaled-step.js';
import { modelStep, type ModelStepDeps } from '../actors/model-step.js';
import type { SessionLog } from '../actors/session-log.js';
import type { StartingStep, StepTiming } from '../actors/step-timing.js';
import type { RestoredSteps } from './restored-steps.js';
import { toolCall, type ToolCallDeps } from '../actors/tool-call.js';
import type { RuntimeProbe } from '../core/runtime-probe.js';
import type { Clock } from '../core/clock.js';
import type { StepKind } from '../core/durability-policy.js';
import type { RunContext } from '../core/run-context.js';
import { builtOnce } from '../machines/built-once.js';
import { runMachine } from '../machines/run-machine.js';
import { isSubRun } from '../machines/agent-path.js';
import { sessionMachine } from '../machines/session-machine.js';
import { provideStepStartNoter } from '../machines/step-starts.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type { SessionActor, SessionSnapshot } from '../runs/live-snapshots.js';
import type { SessionObserver } from '../telemetry/session-observer.js';
import type { HostDeps } from './host-deps.js';
import { sessionAgent } from './session-agent.js';
import { withStepsStarted } from './step-start-timing.js';

/*
 * THE WIRING OF THE RUN MACHINE'S STEP ACTORS: where each step gets its dependencies.
 *
 * The machines (src/machines) are pure and name their actors: `modelStep`, `toolCall`,
 * `approvalCheck`, `guardrailCheck`, `durableTimer`, and `subRun` (the run machine itself,
 * for a sub-agent's run). The actors (src/actors) each declare the narrow dependencies they use
 * (`ModelStepDeps`, `ToolCallDeps`, `ApprovalCheckDeps`, `GuardrailCheckDeps`, a `Clock`).
 * This file joins them, and nothing else does:
 *
 * 1. `wireRunActors` says which actor gets which deps; the machines are provided with those
 *    actors once (`wiredSessionMachine`, built at the first session, then the same for every one).
 * 2. `runStepDeps` builds the deps of one loaded session (its log, its committer's durability
 *    barrier, its agent, the caller's signal and progress), and `wireSteps` attaches
 *    them to the session's actor system (again for each action of a session kept live), under a key private to this file; a step reads them
 *    from the system it runs in (every actor of one session, sub-agent runs included, shares
 *    it, and it lives and dies with the session's actor). No registry: nothing outside the
 *    session's own actor holds them.
 *
 * Why not `machine.provide()` per session (or per runtime): it rebuilds both machines, about
 * 0.8 ms (measured on xstate 5.33: run machine 0.5 ms, session machine 0.3 ms, on a busy
 * 2-core machine), a third of a message's whole cost in the bench's W1, paid again by every
 * `agent.run()` without a session id (a runtime of its own). Why not the actors' input or the
 * machine's context: both are persisted in snapshots, which stay plain JSON, no secrets.
 */

/** The dependencies of the step actors of one loaded session, by actor name. */
export interface RunStepDeps {
  modelStep: ModelStepDeps;
  toolCall: ToolCallDeps;
  approvalCheck: ApprovalCheckDeps;
  guardrailCheck: GuardrailCheckDeps;
  durableTimer: Clock;
}

/** The run machine's named step actors, each handed its own deps from its session's. */
export function wireRunActors(stepsOf: DepsOf<RunStepDeps>) {
  return {
    modelStep: modelStep((system) => stepsOf(system).modelStep),
    toolCall: toolCall((system) => stepsOf(system).toolCall),
    approvalCheck: approvalCheck((system) => stepsOf(system).approvalCheck),
    guardrailCheck: guardrailCheck((system) => stepsOf(system).guardrailCheck),
    durableTimer: durableTimer((system) => stepsOf(system).durableTimer),
  };
}

/** What a session actor is created with (XState's `createActor` options). */
export interface SessionActorOptions {
  snapshot: SessionSnapshot;
  input: { sessionId: string; userId: string | undefined };
  inspect?: ((event: InspectionEvent) => void) | undefined;
}

/** The key a session's step deps sit under on its actor system (private to this file). */
const STEP_DEPS = Symbol('agentstate.runStepDeps');

type WiredSystem = AnyActorSystem & { [STEP_DEPS]?: RunStepDeps | undefined };

/** The step deps of the session whose actor system a step runs in. */
function stepsOf(system: AnyActorSystem): RunStepDeps {
  const steps = (system as WiredSystem)[STEP_DEPS];
  if (!steps) throw new Error('agentstate: a step actor ran outside of a loaded session');
  return steps;
}

/** The run machine with its step actors; its sub-agent runs are this same machine. */
function wiredRunMachine() {
  const run = runMachine().provide({ actors: wireRunActors(stepsOf) });
  // A sub-agent's run is this same machine, nested under its parent's run actor: it names
  // itself as its `subRun` actor (XState resolves actors by name when it spawns or restores).
  (run.implementations.actors as Record<string, unknown>)['subRun'] = run;
  return run;
}

/** The session machine with the wired run machine: provided once (at the first session), never changed. */
const wiredSessionMachine = builtOnce(() =>
  sessionMachine().provide({ actors: { run: wiredRunMachine() } }),
);

/** A session's actor, not started: `wireSteps` gives its steps their deps before it starts. */
export function createSessionActor(options: SessionActorOptions): SessionActor {
  const actor = createActor(wiredSessionMachine(), {
    snapshot: options.snapshot,
    input: options.input,
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  Object.defineProperty(actor.system, STEP_DEPS, { value: undefined, writable: true });
  // The run notes its steps' starts with the session's clock (the same the steps read), in the
  // transition that starts them.
  provideStepStartNoter(actor.system, (context, steps) =>
    withStepsStarted(context, steps, stepsOf(actor.system).modelStep.clock),
  );
  return actor;
}

/**
 * Hands a session actor's steps the deps of the action it runs for: before it starts (the
 * steps in flight in a restored snapshot restart as it starts), and again for each action of a
 * session kept live (`SessionCache`); none while it waits at rest (no step runs then).
 */
export function wireSteps(actor: SessionActor, steps: RunStepDeps | undefined): void {
  (actor.system as WiredSystem)[STEP_DEPS] = steps;
}

/** What the steps read of the loaded session they run in (a `SessionHost`). */
export interface StepHost {
  readonly log: SessionLog;
  readonly observer: SessionObserver | undefined;
  context(): SessionMachineContext;
  contextFor(runId: string): RunContext;
  stepStarted(runId: string, step: number, what: StartingStep): StepTiming;
  /** See `JournaledStepDeps.durable`. */
  durable(kind: StepKind): Promise<void>;
  /** See `ToolCallDeps.probe`. */
  readonly probe: RuntimeProbe | undefined;
  /** The session's restored steps (see `JournaledStepDeps.recoveryTurn`). */
  readonly restored: RestoredSteps;
  /** Where a session run's input items are in the history. */
  inputOf(runId: string): { historyStart: number; inputCount: number } | undefined;
}

/**
 * The step deps of one loaded session for one action: from its host and what the action bound
 * for it. Instances of the classes below, not object literals: an action builds five small
 * objects (no spread of the agent, no closure per dependency); a step reads what it uses
 * through their getters, of the action it started in (a step a cancel cut off and still
 * running reads its own action's deps, never the next one's).
 */
export function runStepDeps(host: StepHost, deps: HostDeps): RunStepDeps {
  const own = Promise.resolve<AgentDeps>(sessionAgent(host, deps.agent));
  const { observer } = host;
  return {
    modelStep: new ModelSteps(host, deps, own, observer),
    toolCall: new ToolSteps(host, deps, own, observer),
    approvalCheck: new ApprovalSteps(host, deps, own, observer),
    guardrailCheck: new JournaledSteps(host, deps, own, observer),
    durableTimer: deps.clock,
  };
}

/** What every journaled step reads of its session: its host, and the action's deps. */
class JournaledSteps implements JournaledStepDeps {
  constructor(
    protected readonly host: StepHost,
    protected readonly deps: HostDeps,
    private readonly own: Promise<AgentDeps>,
    /** The session's telemetry when the action started. */
    readonly observer: SessionObserver | undefined,
  ) {}
  get log() {
    return this.host.log;
  }
  get clock() {
    return this.deps.clock;
  }
  stepStarted(runId: string, step: number, what: StartingStep): StepTiming {
    return this.host.stepStarted(runId, step, what);
  }
  durable(kind: StepKind): Promise<void> {
    return this.host.durable(kind);
  }
  recoveryTurn(runId: string, step: number, signal: AbortSignal): Promise<void> | undefined {
    return this.host.restored.turn(runId, step, signal, this.deps.turns, (what) =>
      this.observer?.recoveryQueued(this.host.contextFor(runId), { step: what }),
    );
  }
  stepEnded(runId: string, step: number): void {
    this.host.restored.ended(runId, step);
  }
  agentFor(path: readonly string[] | undefined, handedTo?: string): Promise<AgentDeps> {
    if (handedTo === undefined && !isSubRun(path)) return this.own;
    return this.deps.subAgents.get(handedTo !== undefined ? [handedTo] : (path ?? []));
  }
  contextFor(runId: string): RunContext {
    return this.host.contextFor(runId);
  }
}

/** What a tool call reads besides a journaled step's: the caller's signal and progress. */
class ToolSteps extends JournaledSteps implements ToolCallDeps {
  get signal() {
    return this.deps.signal;
  }
  get memory() {
    return this.deps.memory;
  }
  get progress() {
    return this.deps.progress;
  }
  get probe() {
    return this.host.probe;
  }
}

/** What a model step reads besides a tool call's: the history, sub-agents, steers. */
class ModelSteps extends ToolSteps implements ModelStepDeps {
  get sessionPermissions() {
    return this.deps.sessionPermissions;
  }
  get maxSubAgentDepth() {
    return this.deps.maxSubAgentDepth;
  }
  newRunId(): string {
    return this.deps.newRunId();
  }
  inputOf(runId: string) {
    return this.host.inputOf(runId);
  }
  historyFrom(): number {
    return this.host.context().historyFrom;
  }
  get history() {
    return this.deps.history;
  }
  get historyModel() {
    return this.deps.agent.model;
  }
  /** The session's steer intake as its model steps call it (on the session's log). */
  get steer() {
    const { steer } = this.deps;
    return steer && (() => steer(this.host.log));
  }
}

/** What an approval check reads besides a journaled step's: the policies of the session. */
class ApprovalSteps extends JournaledSteps implements ApprovalCheckDeps {
  get agentName() {
    return this.deps.agent.agentName;
  }
  get sessionPermissions() {
    return this.deps.sessionPermissions;
  }
}
