/* eslint-disable max-lines -- Long on purpose: the Agent class is the facade app authors call,
 * one class by nature; each public method is a few lines over the session actions with its
 * documentation (the API reference, with examples), which is most of the file. Its parts live
 * apart: argument checks (agent-call-checks.ts), runtimes per store (agent-runtimes.ts), a
 * RunState's carried session (carried-session.ts), streams, tools and actors.
 */
import { ulid } from 'ulid';
import { RunContext, type RunContextInit } from '../core/run-context.js';
import type { RunInput } from '../items/item.js';
import { MemorySessionStore } from '../persistence/kv/memory-session-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import { OptionChecker, describeValue } from '../validation/option-checks.js';
import { checkToolChoice, mergeModelSettings } from '../models/model-settings.js';
import { continueAction } from '../actions/continue-run.js';
import { messageAction } from '../actions/send-message.js';
import { messageOf } from '../actions/message.js';
import { AgentBinding } from '../definition/agent-binding.js';
import { DefinitionCache } from '../definition/definition-cache.js';
import { agentTool, type AgentToolOptions } from './agent-tool.js';
import { agentActorLogic } from './agent-actor.js';
import type { AgentActorLogic } from './agent-actor-types.js';
import { systemClock } from '../core/clock.js';
import type { Tool } from '../tools/tool.js';
import { AgentModel } from '../definition/agent-model.js';
import { checkAgentOptions, type AgentOptions } from '../definition/agent-options.js';
import { envLogger } from '../telemetry/logger.js';
import { AgentSession } from './agent-session.js';
import { defaultStore } from '../sessions/default-store.js';
import { submitDecisions } from '../approvals/decision-submission.js';
import type { RunResult } from '../session-host/run-result.js';
import { checkRunCall, checkRunOptions } from '../actions/run-call-checks.js';
import {
  APPROVE_OPTION_NAMES,
  CANCEL_OPTION_NAMES,
  REJECT_OPTION_NAMES,
  RESOLVE_IN_DOUBT_OPTION_NAMES,
  RESUME_OPTION_NAMES,
  RUN_OPTION_NAMES,
  checkId,
  checkResumeTarget,
  checkSessionContext,
  decisionOf,
} from './agent-call-checks.js';
import { AgentRuntimes } from './agent-runtimes.js';
import { carriedSessionStore } from './carried-session.js';
import { RunState, type ApprovalDecision } from '../runs/run-state.js';
import { createRunStream, type RunStream } from './run-stream.js';
import { attachRun, checkAttachCall, type AttachOptions } from './run-attach.js';
import type { AttachEvent } from '../runs/attach-events.js';
import type { ActionObservers } from '../session-host/action-observers.js';
import { SessionRuntime } from '../sessions/session-runtime.js';
import type { BindingSource } from '../definition/agent-binding.js';
import type { ApprovalSchedulerHandle } from '../approvals/approval-scheduler-options.js';
import { checkSchedulerOptions } from '../sessions/runtime-option-checks.js';
import { INSPECT_EXPECTED, isInspectOption, type InspectOption } from '../definition/inspection.js';
import type {
  StartSchedulerOptions,
  StreamDecision,
  ApproveOptions,
  CancelOptions,
  RejectOptions,
  ResolveInDoubtOptions,
  ResumeOptions,
  RunOptions,
} from './agent-call-options.js';
import {
  checkInDoubtResolution,
  resolveInDoubt,
  type InDoubtResolution,
} from '../actions/resolve-in-doubt.js';

/**
 * A stateless, reusable agent blueprint. `run` / `stream` execute one run in a session,
 * `resume` continues an interrupted or crashed one, `createSession` binds the agent to a
 * context for several runs.
 * @example
 * const agent = new Agent({ name: 'calc', model, tools: [add] });
 * const result = await agent.run('What is 2 + 3?', { sessionId: 'c1', userId: 'alice' });
 */
export class Agent<TOutput = string> implements BindingSource {
  readonly name: string;
  readonly options: AgentOptions<unknown>;
  private readonly runtimes = new AgentRuntimes(this);
  /** What this agent's bindings share (fingerprint, handoff tools, output schema), made once. */
  private readonly definitions = new DefinitionCache();

  /**
   * @throws TypeError for an unknown option name (naming the closest valid one), a `model`
   *   that does not implement `Model`, an empty `name`, a `maxTurns` or `approvalTimeoutMs`
   *   that is not a positive integer, or a budget limit that is negative or not finite.
   */
  constructor(options: AgentOptions<TOutput>) {
    checkAgentOptions(options);
    this.name = options.name;
    // The runs call the model through the agent's wrapper: redacted errors, price warnings.
    const { redact, prices } = options;
    this.options = {
      ...options,
      model: new AgentModel(options.model, { redact, prices }),
      // `AGENTSTATE_LOG` is read once, here, when the agent has no logger of its own.
      logger: options.logger ?? envLogger(process.env['AGENTSTATE_LOG']),
    };
  }

  /** @internal Binds the agent to a context for one action (toolkits are closed after it). */
  async bind(context: RunContext) {
    const binding = await AgentBinding.create(this.options, context, this.definitions);
    return { binding, release: () => binding.close() };
  }

  /**
   * One run. Throws a `TypeError` at the call (nothing runs, nothing is stored) for input that
   * is neither a string nor an array of items, an unknown option name or a bad option value.
   * A failed model call does not throw: the result is `interrupted` with reason `error` and the
   * typed error in `error`; `resume` retries the call, `cancel` gives up. A session whose run
   * is paused or crashed refuses the message with `RunPausedError`; a session whose run this
   * process is executing, with `RunInProgressError`.
   */
  run(input: RunInput, options: RunOptions = {}): Promise<RunResult<TOutput>> {
    checkRunCall('agent.run()', input, options, RUN_OPTION_NAMES);
    const toolChoiceChecked = this.checkToolChoice('agent.run()', options);
    return this.execute(input, options, {}, toolChoiceChecked);
  }

  /** Like `run`, as a stream of events; checks its arguments the same way, at the call. */
  stream(input: RunInput, options: RunOptions = {}): RunStream<TOutput> {
    checkRunCall('agent.stream()', input, options, RUN_OPTION_NAMES);
    const toolChoiceChecked = this.checkToolChoice('agent.stream()', options);
    return createRunStream(
      (observers) => this.execute(input, options, observers, toolChoiceChecked),
      options.signal,
    );
  }

  /**
   * Continues an interrupted or crashed run, from a session id (in the store) or a RunState
   * (whose approval decisions are applied). A run interrupted by a failed model call calls the
   * model again at the same journal step (the user's message is not added again). Throws a
   * `TypeError` at the call for a target that is neither, or bad options. With a RunState, a
   * `userId` option (also an explicit `undefined`) that is not the state's user makes it
   * `SessionNotFoundError`: nothing runs. `metadata` overrides the run's stored metadata per
   * key for this resume only (not stored).
   */
  resume(target: string | RunState, options: ResumeOptions = {}): Promise<RunResult<TOutput>> {
    checkResumeTarget('agent.resume()', target, ' (RunState.fromJSON reads a saved one)');
    checkRunOptions('agent.resume()', options, RESUME_OPTION_NAMES);
    return this.continue(target, options);
  }

  /**
   * Approves a call the session's run (or one of its sub-agent runs) waits on, by session id
   * and call id, and continues the run like `resume`: no RunState needed, so any process with
   * the store can decide. The same checks as `resume`, before anything is loaded or run: another
   * user's session (`userId` is the partition) is `SessionNotFoundError`, a run another agent
   * runs `WrongAgentError`, a call that is not waiting `UnknownCallError` (one decided already
   * `AlreadyDecidedError`, naming the decision), one past its deadline `ApprovalExpiredError`.
   * @throws TypeError at the call for an empty session or call id, or bad options.
   * @example
   * const result = await agent.approve('pay', 'call_1_0', { userId: 'alice' });
   */
  approve(
    sessionId: string,
    callId: string,
    options: ApproveOptions = {},
  ): Promise<RunResult<TOutput>> {
    return this.decide('agent.approve()', sessionId, callId, true, options, APPROVE_OPTION_NAMES);
  }

  /**
   * Rejects a call the session's run waits on, by session id and call id (see `approve`): the
   * model reads `message` (or a default saying the call was rejected) and the run goes on.
   * @example
   * await agent.reject('pay', 'call_1_0', { userId: 'alice', message: 'not on a Friday' });
   */
  reject(
    sessionId: string,
    callId: string,
    options: RejectOptions = {},
  ): Promise<RunResult<TOutput>> {
    return this.decide('agent.reject()', sessionId, callId, false, options, REJECT_OPTION_NAMES);
  }

  /**
   * Resolves a tool call in doubt the session's run waits on (a call cut off by a crash whose
   * tool has `onInterrupted: 'ask'`: the run is interrupted with reason `in_doubt`, the calls in
   * `result.callsInDoubt` and the session's `runStatus.callsInDoubt`) and continues the run like
   * `resume`: `{ callId, action: 'retry' }` runs the call again with the same call id,
   * `{ callId, action: 'result', result }` records `result` as its output without running it,
   * `{ callId, action: 'fail' }` gives the model the unknown-outcome error. Checked before
   * anything is loaded or run: another user's session is `SessionNotFoundError`, a call that
   * does not wait for an operator `CallNotInDoubtError`; nothing changes. Audited (kind
   * `in_doubt`, `by`) and journaled in the call's entry (`inDoubt.operator`).
   * @throws TypeError at the call for an empty session id, a bad resolution or bad options.
   * @example
   * const result = await agent.resolveInDoubt('pay', { callId: 'call_1_0', action: 'fail' },
   *   { userId: 'alice', by: 'ops' });
   */
  resolveInDoubt(
    sessionId: string,
    resolution: InDoubtResolution,
    options: ResolveInDoubtOptions = {},
  ): Promise<RunResult<TOutput>> {
    const call = 'agent.resolveInDoubt()';
    checkId(call, 'session id', sessionId);
    const checked = checkInDoubtResolution(call, resolution);
    checkRunOptions(call, options, RESOLVE_IN_DOUBT_OPTION_NAMES);
    const { store: _store, userId, ...rest } = options;
    const action = resolveInDoubt<TOutput>(checked, { ...rest, via: 'api' });
    return this.runtimeFor(this.storeFor(options))
      .execute({ sessionId, userId }, action)
      .then((result) => result!);
  }

  /**
   * Decides calls the session's run waits on (each `{ callId, approve, message? }`, checked
   * like `approve` / `reject`) and continues the run as a stream of events, like
   * `streamResume`: the HTTP handler's approvals, several calls of one step decided at once.
   * @throws TypeError at the call for an empty session or call id, no decision, or bad options.
   * @example
   * for await (const event of agent.streamDecide('pay', [{ callId: 'call_1_0', approve: true }],
   *   { userId: 'alice' })) log(event);
   */
  streamDecide(
    sessionId: string,
    decisions: readonly StreamDecision[],
    options: ResumeOptions = {},
  ): RunStream<TOutput> {
    const call = 'agent.streamDecide()';
    const list: unknown = decisions;
    if (!Array.isArray(list) || list.length === 0) {
      throw new TypeError(`${call}: decisions must be a non-empty array`);
    }
    checkRunOptions(call, options, RESUME_OPTION_NAMES);
    const checked = decisions.map((decision, i) => {
      new OptionChecker(call, decision, ['callId', 'approve', 'message'], `decisions[${i}]`).check(
        'approve',
        'a boolean',
        (v) => typeof v === 'boolean',
        true,
      );
      const { callId, approve, message } = decision;
      return decisionOf(
        call,
        sessionId,
        callId,
        approve,
        message === undefined ? {} : { message },
        ['message'],
      );
    });
    return createRunStream(
      (observers) => this.continue(sessionId, options, observers, checked),
      options.signal,
    );
  }

  private decide(
    call: string,
    sessionId: string,
    callId: string,
    approve: boolean,
    options: RejectOptions,
    names: readonly string[],
  ): Promise<RunResult<TOutput>> {
    const decision = decisionOf(call, sessionId, callId, approve, options, names);
    return this.continue(sessionId, options, {}, [decision]);
  }

  /**
   * `resume` as a stream of events (like `stream`): leaving the iteration early cancels the
   * resumed run unless the stream is `detach()`ed.
   * @example
   * for await (const event of agent.streamResume(state.approve(callId))) log(event);
   */
  streamResume(target: string | RunState, options: ResumeOptions = {}): RunStream<TOutput> {
    checkResumeTarget('agent.streamResume()', target);
    checkRunOptions('agent.streamResume()', options, RESUME_OPTION_NAMES);
    return createRunStream(
      (observers) => this.continue(target, options, observers),
      options.signal,
    );
  }

  /**
   * Cancels the session's run, wherever it is: one executing now, in this process (any agent on
   * the same store object) or in another process holding its lease on a store with a decision
   * inbox (PostgreSQL: the request and its notification reach that process, which aborts the
   * run's signal: its tools' `signal`s abort, its sub-agent runs stop), or one paused or crashed
   * (waiting for an approval, interrupted by its budget, turn limit or a failed model call, or
   * stopped by a crash). It ends `cancelled`, the session takes messages again and an audit
   * entry names `by`. Resolves when the run is over, or, for a run in another process, once
   * the request is recorded.
   * @throws TypeError at the call for an empty session id or bad options;
   *   `SessionNotFoundError` for an unknown session; `InvalidSessionTransitionError` when the
   *   session has no run.
   * @example
   * const paused = await agent.run('pay 5', { sessionId: 'pay', userId: 'alice' });
   * if (paused.interrupted) await agent.cancel('pay', { userId: 'alice', by: 'ops' });
   */
  cancel(sessionId: string, options: CancelOptions = {}): Promise<void> {
    checkId('agent.cancel()', 'session id', sessionId);
    checkRunOptions('agent.cancel()', options, CANCEL_OPTION_NAMES);
    if (options.by !== undefined && typeof options.by !== 'string') {
      throw new TypeError(`agent.cancel(): by must be a string, got ${describeValue(options.by)}`);
    }
    return this.runtimeFor(this.storeFor(options)).cancel(
      { sessionId, userId: options.userId },
      options.by,
    );
  }

  /**
   * The session's current run (else its last one) as events from a cursor: its past rebuilt
   * from the journal, then, while this process executes it, its events as they happen, until
   * the run ends or pauses (`run_ended`). Each event's `id` increases through the run: pass the
   * last one seen as `after` to go on exactly after it. A model call's text streams as deltas
   * to a reader that was there from its start; a reader that came later gets it whole once the
   * step is journaled. A run another process executes is followed through the store when it
   * can watch sessions (PostgreSQL: LISTEN/NOTIFY; polled on the agent's clock without it), each
   * step whole once journaled; on a store that cannot, it is read once, as far as it is stored.
   * Another user's session, like a missing one, is `SessionNotFoundError`.
   * @throws TypeError at the call for an empty session id, bad options or a bad `after`.
   * @example
   * for await (const event of agent.attach('c1', { userId: 'alice' })) log(event.id, event.type);
   */
  attach(sessionId: string, options: AttachOptions = {}): AsyncIterable<AttachEvent> {
    const after = checkAttachCall(sessionId, options);
    const store = this.storeFor(options);
    const key = { sessionId, userId: options.userId };
    const clock = this.options.clock ?? systemClock;
    return attachRun(this.runtimeFor(store), store, this.liveRunsFor(store), key, after, clock);
  }

  private async continue(
    target: string | RunState,
    options: ResumeOptions,
    observers: ActionObservers = {},
    decisions?: ApprovalDecision[],
  ): Promise<RunResult<TOutput>> {
    const state = typeof target === 'string' ? undefined : target;
    const sessionId = state ? state.sessionId : (target as string);
    // An explicit userId is the caller's: another user's RunState is not found, never served.
    if (state && 'userId' in options && options.userId !== state.userId) {
      throw new SessionNotFoundError(sessionId);
    }
    const userId = state ? state.userId : options.userId;
    let store = options.store ?? this.options.store;
    if (!store && state?.data.session) store = await carriedSessionStore(state.data.session);
    store ??= defaultStore();
    return this.runtimeFor(store).execute(
      { sessionId, userId },
      // Checked at the call (`resume`, `approve`, ...): not again.
      continueAction<TOutput>({
        ...observers,
        decisions: state?.decisionsToApply() ?? decisions,
        maxTurns: options.maxTurns,
        signal: observers.signal ?? options.signal,
        metadata: options.metadata,
        durability: options.durability,
        ephemeral: !options.store && !this.options.store && state?.data.session !== undefined,
      }),
    );
  }

  /**
   * This agent as a tool of another agent (a sub-agent): the parent's model calls it like any
   * tool, and the call runs this agent as a child run nested in the parent's, with its own
   * journal steps, approvals and usage (rolled up into the parent's). Its final output is the
   * call's result; a failure is a tool error item the parent's model reads (or fails the parent
   * with `failParent`). The child's RunContext is the parent's with its own run id and the
   * `metadata` given here merged in.
   * @example
   * const triage = new Agent({ name: 'triage', model, tools: [billing.asTool({
   *   name: 'ask_billing', description: 'Answers billing questions' })] });
   */
  asTool<TArgs = { input: string }>(options: AgentToolOptions<TArgs>): Tool<TArgs, unknown> {
    return agentTool<TArgs>(this, options);
  }

  /**
   * This agent's runs as XState actor logic, for an app's own machine to `invoke` or `spawn`
   * (input `{ input, sessionId?, userId?, metadata? }`, output the run's outcome, the run's
   * stream events emitted). The actor's snapshot nests in the app actor's; the run's steps are
   * journaled in `store`, so restoring the app actor in any process picks the run up without
   * repeating one. Decide a pending approval by sending `agent.approve` / `agent.reject`.
   * `inspect` (default: the agent's) sees the actors the run executes in: its session actor,
   * run, steps and sub-agent runs (they run in an actor system of their own).
   * @example
   * const app = setup({ actors: { assistant: agent.asActor({ store }) } }).createMachine({
   *   invoke: { src: 'assistant', input: { input: 'Where is my order?' }, onDone: 'answered' },
   * });
   */
  asActor(
    options: { store?: SessionStore | undefined; inspect?: InspectOption | undefined } = {},
  ): AgentActorLogic {
    checkRunOptions('agent.asActor()', options, ['store', 'inspect']);
    new OptionChecker('agent.asActor()', options, ['store', 'inspect']).check(
      'inspect',
      INSPECT_EXPECTED,
      isInspectOption,
    );
    const store = this.storeFor(options);
    // Its own runtime when it has its own inspector (sharing the agent's live-run set).
    const inspect = options.inspect;
    const runtime = inspect
      ? new SessionRuntime({ store, agent: this, liveRuns: this.liveRunsFor(store), inspect })
      : undefined;
    const source = {
      name: this.name,
      runtimeFor: (s: SessionStore) => runtime ?? this.runtimeFor(s),
    };
    return agentActorLogic(source, store, this.options.clock ?? systemClock);
  }

  /**
   * Starts firing approval deadlines on their own for the sessions of `store` (default: the
   * agent's store): see `SessionRuntime.startScheduler`. Stop it with `await handle.stop()`.
   * @example
   * const scheduler = agent.startScheduler({ onError: (error) => console.warn(error) });
   */
  startScheduler(options: StartSchedulerOptions = {}): ApprovalSchedulerHandle {
    checkSchedulerOptions('agent.startScheduler()', options, ['store']);
    const { store, ...rest } = options;
    return this.runtimeFor(this.storeFor({ store })).startScheduler(rest);
  }

  /**
   * Records the decisions made on `state` (`state.approve`, `state.reject`) in the store's
   * decision inbox, for a process running `startScheduler` on the same database to apply
   * (PostgreSQL: it hears of them through LISTEN/NOTIFY, or polls). Nothing runs here. Checked
   * against the stored run first, with `resume`'s typed errors; nothing is recorded then.
   * @example
   * await agent.submitDecisions(state.approve(callId)); // an API process; a worker runs it
   */
  submitDecisions(state: RunState, options: Pick<RunOptions, 'store'> = {}): Promise<void> {
    if (!(state instanceof RunState)) {
      throw new TypeError(
        `agent.submitDecisions(): the state must be a RunState, got ${describeValue(state)}`,
      );
    }
    checkSchedulerOptions('agent.submitDecisions()', options, ['store']);
    return submitDecisions(
      this.storeFor(options),
      this.options.clock ?? systemClock,
      state,
      this.name,
    );
  }

  /** Binds the agent to a context: instructions resolved and toolkits created once. */
  createSession(
    context: RunContextInit = {},
    options: { store?: SessionStore } = {},
  ): Promise<AgentSession<TOutput>> {
    checkSessionContext(context);
    checkRunOptions('agent.createSession()', options, ['store']);
    return this.bindSession(context, options);
  }

  private async bindSession(
    context: RunContextInit,
    options: { store?: SessionStore },
  ): Promise<AgentSession<TOutput>> {
    const ctx = new RunContext({ ...context, sessionId: context.sessionId ?? ulid() });
    const durable =
      options.store ?? this.options.store ?? (context.sessionId ? defaultStore() : undefined);
    const binding = await AgentBinding.create(this.options, ctx, this.definitions);
    return new AgentSession<TOutput>(
      this,
      binding,
      durable ?? new MemorySessionStore(),
      durable === undefined,
    );
  }

  /** The SessionRuntime this agent uses for `store` (one per store, sharing its history cache). */
  runtimeFor(store: SessionStore): SessionRuntime {
    return this.runtimes.runtimeFor(store);
  }

  /** @internal The sessions whose run is executing on `store`, shared with its AgentSessions. */
  liveRunsFor(store: SessionStore): Set<string> {
    return this.runtimes.liveRunsFor(store);
  }

  /** The store a call uses: its own, else the agent's, else the default one. */
  private storeFor(options: { store?: SessionStore | undefined }): SessionStore {
    return options.store ?? this.options.store ?? defaultStore();
  }

  /**
   * A `toolChoice` naming a tool the agent lacks fails at the call. Toolkit tools are known
   * once a session is bound: with toolkits, the run checks it before it starts. Whether it was
   * checked here.
   */
  private checkToolChoice(call: string, options: RunOptions): boolean {
    if (this.options.toolkits?.length) return false;
    const settings = mergeModelSettings(this.options.modelSettings, options.modelSettings);
    checkToolChoice(
      call,
      settings,
      (this.options.tools ?? []).map((t) => t.name),
    );
    return true;
  }

  private execute(
    input: RunInput,
    options: RunOptions,
    observers: ActionObservers,
    toolChoiceChecked: boolean,
  ): Promise<RunResult<TOutput>> {
    const explicit = options.store ?? this.options.store;
    const ephemeral = !explicit && options.sessionId === undefined;
    const store = explicit ?? (ephemeral ? new MemorySessionStore() : defaultStore());
    const sessionId = options.sessionId ?? ulid();
    // The arguments were checked at the call (`run`, `stream`): the message is not checked again.
    const message = messageOf(
      input,
      {
        ...observers,
        signal: observers.signal ?? options.signal,
        metadata: options.metadata,
        maxTurns: options.maxTurns,
        modelSettings: options.modelSettings,
        durability: options.durability,
        whileBusy: options.whileBusy ?? this.options.whileBusy,
        messageId: options.messageId,
        ephemeral,
      },
      toolChoiceChecked,
    );
    return this.runtimeFor(store).execute(
      { sessionId, userId: options.userId },
      messageAction<TOutput>(message),
    );
  }
}
