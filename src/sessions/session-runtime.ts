/* eslint-disable max-lines -- Long on purpose: one public service, SessionRuntime, each method
 * documented where its users read it; its parts live apart (action runner, loader, cache, busy
 * runs, live runs, leases, scheduler, recovery, audit reader). */
import { hasLeases } from '../persistence/capabilities/store-supports.js';
import { BusyRuns } from './busy-runs.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { answeringRunHere } from './answering-run.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type {
  ListSessionsQuery,
  SessionInfo,
  SessionKey,
  SessionPage,
  SessionRecord,
  SessionStore,
} from '../persistence/session-store.js';
import { hostname } from 'node:os';
import type { BindingSource } from '../definition/agent-binding.js';
import { keyInScope, pageInScope } from '../session-host/session-scope.js';
import { ApprovalScheduler } from '../approvals/approval-scheduler.js';
import {
  deadlineIndexOf,
  type ApprovalSchedulerHandle,
  type ApprovalSchedulerOptions,
} from '../approvals/approval-scheduler-options.js';
import { newId } from '../core/new-id.js';
import {
  checkRecoverOptions,
  type RecoverOptions,
  type RecoveredRun,
} from '../recovery/recover-options.js';
import { recoverRuns } from '../recovery/run-recovery.js';
import { DEFAULT_LEASE_TTL_MS, RunLeases } from '../runs/run-lease.js';
import { systemClock, type Clock } from '../core/clock.js';
import { cacheKey, DEFAULT_CACHED_SESSIONS, SessionCache } from '../session-host/session-cache.js';
import type { SessionAction } from '../actions/session-action.js';
import {
  SessionEventHub,
  type SessionRuntimeEvents,
  type SessionRuntimeEventType,
} from '../session-host/session-events.js';
import {
  checkExecuteCall,
  checkListQuery,
  checkRuntimeOptions,
  checkSchedulerOptions,
} from './runtime-option-checks.js';
import { describeSession, type SessionView } from '../runs/session-view.js';
import { runOwner } from '../runs/run-owner.js';
import { Observability } from '../telemetry/observability.js';
import type { SessionRuntimeOptions } from './session-runtime-options.js';
import { newSessionRecord } from '../runs/new-session-record.js';
import { AuditReader } from '../audit/audit-reader.js';
import { SessionLoader } from '../session-host/session-loader.js';
import { ActionRunner } from './action-runner.js';
import { LiveRuns } from './live-runs.js';
import { MessageQueue } from './message-queue.js';
import { RecoveryTurns } from '../session-host/recovery-turns.js';
import { RunInProgressError } from '../errors/session-errors.js';
import type { AuditPage, AuditQuery } from '../persistence/audit-log.js';

export type { SessionRuntimeOptions } from './session-runtime-options.js';

/**
 * Load a session, apply an action, save it, with optimistic versions: a conflicting save
 * raises `SessionConflictError` and the caller decides whether to retry. Read methods never
 * change the stored version.
 */
export class SessionRuntime {
  readonly store: SessionStore;
  private readonly source: BindingSource;
  private readonly clock: Clock;
  private readonly hub = new SessionEventHub();
  private readonly cache: SessionCache;
  private readonly scope: SessionKey | undefined;
  /** Sessions whose run is executing now (by `cacheKey`), in this runtime or its peers. */
  private readonly executing: Set<string>;
  /** The message id (`RunOptions.messageId`) of each run this runtime executes, by `cacheKey`. */
  private readonly answering = new Map<string, string>();
  /** How to wait for or cancel those runs, for the messages sent meanwhile. */
  private readonly busy: BusyRuns;
  /** This runtime's owner id in session leases and their length. */
  readonly leaseOwner: string;
  private readonly leaseTtlMs: number;
  private readonly leasing: boolean;
  /** The leases of this runtime's running actions, renewed together (once one is taken). */
  private leases: RunLeases | undefined;
  private readonly audit: AuditReader;
  private readonly loader: SessionLoader;
  /** Applies actions to loaded sessions. */
  private readonly actions: ActionRunner;
  private readonly live: LiveRuns; // the runs executing here, as a cancel reaches them
  /** The messages queued while the session's run was busy (`whileBusy: 'queue' | 'steer'`). */
  private readonly queue: MessageQueue;

  /**
   * @throws TypeError for an unknown option name (naming the closest valid one), a `store`,
   *   `agent` or `clock` that does not implement its interface, or a bad `scope`.
   */
  constructor(options: SessionRuntimeOptions) {
    checkRuntimeOptions(options);
    this.store = options.store;
    this.source = options.agent;
    this.scope = options.scope && {
      sessionId: options.scope.sessionId,
      userId: options.scope.userId,
    };
    this.clock = options.clock ?? options.agent.options.clock ?? systemClock;
    this.executing = options.liveRuns ?? new BusyRuns();
    this.busy = this.executing instanceof BusyRuns ? this.executing : new BusyRuns();
    const lease = options.lease ?? options.agent.options.lease;
    this.leasing = lease !== false;
    this.leaseOwner = (lease || undefined)?.owner ?? `${hostname()}:${process.pid}:${newId()}`;
    this.leaseTtlMs = (lease || undefined)?.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    const agent = options.agent.options;
    this.hub.inspectWith(options.inspect ?? options.agent.options.inspect);
    this.audit = new AuditReader(this.store, this.scope);
    this.live = new LiveRuns(this.store, this.clock, (k) => this.load(k));
    this.queue = new MessageQueue({
      store: this.store,
      clock: this.clock,
      busy: this.busy,
      agentPolicy: options.agent.options.whileBusy,
      executing: (k) => this.executing.has(cacheKey(k)),
      execute: (k, a) => this.execute(k, a),
      cached: (k) => this.cache.record(k) !== undefined,
      leased: this.leasing && hasLeases(this.store),
    });
    this.loader = new SessionLoader(this.store, this.source.options, this.hub);
    const cached = options.cachedSessions ?? agent.cachedSessions ?? DEFAULT_CACHED_SESSIONS;
    this.cache = new SessionCache(cached, options.liveSessions ?? agent.liveSessions ?? cached);
    this.actions = new ActionRunner({
      store: this.store,
      source: this.source,
      clock: this.clock,
      cache: this.cache,
      hub: this.hub,
      loader: this.loader,
      observability: new Observability({
        telemetry: options.telemetry ?? agent.telemetry,
        logger: options.logger ?? agent.logger,
        redact: agent.redact,
        envLevel: process.env['AGENTSTATE_LOG'],
      }),
      permissions: options.permissions,
      durability: options.durability ?? agent.durability,
      maxRecoveries: options.maxRecoveries,
      turns: new RecoveryTurns(),
      newRecord: (key, input) => this.newRecord(key, input),
      steerFor: (key) => this.queue.steerFor(key),
    });
  }

  /** The name of the agent whose runs this runtime runs (and alone continues). */
  get agentName(): string {
    return this.source.options.name;
  }

  on<K extends SessionRuntimeEventType>(
    type: K,
    listener: (event: SessionRuntimeEvents[K] & { type: K }) => void,
  ): () => void {
    return this.hub.on(type, listener);
  }

  /**
   * Applies `action` to the session and saves the result. Everything the action needs (the
   * record and its snapshot, the listing entry, the owner's totals, the history and the stored
   * run's journal) is read and checked first: damage is a typed error before any model or
   * tool call, and nothing is written. An action that runs (`action.runs`) on a session whose
   * run this runtime is already executing raises `RunInProgressError` before anything is read
   * (or, by its `whileBusy`, waits for the run to end or cancels it, then goes on);
   * with a store that keeps leases it also takes the session's lease first (another owner's
   * live lease is `RunInProgressError` too), renews it while the run lives, fences every save
   * with it and releases it when the action returns.
   * A target that is neither a session id nor a key, or an action that is not one, throws a
   * `TypeError` at the call.
   */
  execute<R>(target: string | SessionKey, action: SessionAction<R>): Promise<R> {
    checkExecuteCall(target, action);
    return this.executeChecked(target, action);
  }

  private async executeChecked<R>(
    target: string | SessionKey,
    action: SessionAction<R>,
  ): Promise<R> {
    const key = this.toKey(target);
    if (action.runs !== true) return this.actions.apply(key, action, undefined);
    // One live run per session in this process: a second would restart the steps in flight.
    // A message sent meanwhile is refused, waits or cancels the run (its `whileBusy`).
    const executing = cacheKey(key);
    // The same message again while its run executes here: not a new message, whatever its
    // `whileBusy`: its answer is that run's (once it ended, the stored record says so). A run
    // that stopped before storing it did not answer it: this one runs.
    const { messageId } = action;
    if (messageId !== undefined && this.answering.get(executing) === messageId) {
      const ended = this.busy.ended(executing);
      const parts = { store: this.store, hub: this.hub };
      const runId = await answeringRunHere(parts, key, messageId, ended);
      if (runId === undefined) return this.executeChecked(key, action);
      throw new MessageAnsweredError(key.sessionId, messageId, runId, true);
    }
    // Messages queued earlier go first (then this one runs, or meets their run busy).
    if (!this.executing.has(executing)) await this.queue.ahead(key, action);
    while (this.executing.has(executing)) {
      // 'queue' and 'steer' with a store that keeps a message inbox: stored, answered later.
      if (this.queue.queues(action)) return this.queue.queueHere(key, action);
      await this.busy.whenFree(executing, key.sessionId, action);
    }
    this.executing.add(executing);
    if (messageId !== undefined) this.answering.set(executing, messageId);
    // The run's own cancel: `whileBusy: 'interrupt'` (`BusyRuns`) and a cancel from anywhere
    // (`LiveRuns`) abort it; the action reads it as its `cancelSignal`.
    const cancel = new AbortController();
    const live = { ...action, observe: { ...action.observe, cancelSignal: cancel.signal } };
    // Returned, not awaited: nothing of this stays suspended while the action runs.
    const attempt = (): Promise<R> =>
      this.live.run(
        key,
        cancel,
        () => this.applyLeased(key, live, action),
        // A cancel (the scheduler's `cancelRun`) is applied as given, cancelled or not.
        action.event?.type === 'CANCEL'
          ? undefined
          : (cancelled) => this.applyLeased(key, cancelled, cancelled),
        action.message !== undefined,
      );
    // 'interrupt' while another process runs the session: it waits for the session here, so
    // the messages sent here meanwhile wait behind it (and a later one cancels it, not skips it).
    const start =
      action.whileBusy === 'interrupt' ? () => this.interruptElsewhere(key, attempt) : attempt;
    const tracked = this.busy.track(executing, cancel, start, () => {
      this.executing.delete(executing);
      this.answering.delete(executing);
    });
    const drains = this.queue.drainsAfter(key, action);
    if (drains) {
      // The messages queued meanwhile become the next runs (a drain running goes on by itself).
      const next = (): void => {
        if (drains() && !this.queue.isDraining(key)) void this.queue.drain(key);
      };
      tracked.then(next, next);
    }
    // A new message whose lease told of messages queued before it runs after them.
    const { byLease } = this.queue;
    const again = (): Promise<R> => this.executeChecked(key, action);
    const handled = this.elsewhere(key, action, tracked);
    return byLease ? byLease.afterQueued(key, action, handled, again) : handled;
  }

  /** `running`, or, when another process runs the session, what `action`'s policy does then. */
  private elsewhere<R>(key: SessionKey, action: SessionAction<R>, running: Promise<R>): Promise<R> {
    if (!this.queue.queues(action)) return running;
    return running.catch((error: unknown) => {
      if (!(error instanceof RunInProgressError && error.elsewhere)) throw error;
      // Another process runs the session: the message is stored for it (`MessageQueuedError`).
      return this.queue.queueElsewhere(key, action);
    });
  }

  /**
   * `whileBusy: 'interrupt'` while another process runs the session: asks it to cancel the run
   * it stores (`LiveRuns.cancelElsewhere`), and again each time the session is still taken (the
   * request could not name a run yet, or another run took the session meanwhile), trying
   * `attempt` as the lease is given up; `RunInProgressError` once one run has kept the session
   * a lease length after it was asked.
   */
  private async interruptElsewhere<R>(key: SessionKey, attempt: () => Promise<R>): Promise<R> {
    let asked: string | undefined;
    let until = this.clock.now() + this.leaseTtlMs;
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof RunInProgressError && error.elsewhere)) throw error;
        const runId = await this.live.cancelElsewhere(key, undefined);
        if (runId !== undefined && runId !== asked) {
          asked = runId;
          until = this.clock.now() + this.leaseTtlMs;
        } else if (this.clock.now() >= until) throw error;
      }
      await this.clock.sleepUntil(this.clock.now() + Math.ceil(this.leaseTtlMs / 50));
    }
  }

  /** Cancels the session's run wherever it executes (see `LiveRuns.cancel`); `by` is audited. */
  cancel(target: string | SessionKey, by?: string): Promise<void> {
    return this.live.cancel(this.toKey(target), by, (k, a) => this.execute(k, a));
  }

  /**
   * Applies an action that runs, holding the session's lease when the store keeps leases
   * (`given`: the action as `execute` was given it, which the inbox checks under the lease).
   */
  private applyLeased<R>(
    key: SessionKey,
    action: SessionAction<R>,
    given: SessionAction<R>,
  ): Promise<R> {
    const { store } = this;
    if (!this.leasing || !hasLeases(store)) return this.actions.apply(key, action, undefined);
    this.leases ??= new RunLeases(store, {
      owner: this.leaseOwner,
      ttlMs: this.leaseTtlMs,
      clock: this.clock,
      onRenew: () => this.live.poll(),
    });
    return this.leases.holding(
      key,
      action.name,
      (lease) => {
        const checked = this.queue.byLease?.underLease(key, given, lease);
        const apply = (): Promise<R> => this.actions.apply(key, action, lease);
        return checked ? checked.then(apply) : apply();
      },
      (told) => this.queue.byLease?.released(key, told),
    );
  }

  /**
   * Resumes the runs whose owner died: sessions of one user (the runtime's scope, if it has
   * one) whose lease expired at least `olderThan` ms ago without being released and whose
   * stored run is still in flight. Each is resumed like `continueRun()` under this runtime's
   * lease; one failing (or taken by another process first) does not stop the others. A run
   * another agent runs is left alone (for that agent's recovery). Then it answers, in order and
   * each once, the messages queued at least `olderThan` ms ago for sessions with no run in
   * progress (their run's process died before its end read the inbox); those runs are not
   * listed in the result.
   */
  async recover(options: RecoverOptions): Promise<RecoveredRun[]> {
    checkRecoverOptions(options);
    return recoverRuns(
      {
        store: this.store,
        clock: this.clock,
        scope: this.scope,
        agentName: this.agentName,
        load: (key) => this.load(key),
        // A recovered run's end takes the messages queued for the session meanwhile.
        execute: async (key, action) => {
          try {
            return await this.execute(key, action);
          } finally {
            await this.queue.drain(key);
          }
        },
        // Messages no run took (their session has no run in progress): answered here.
        drainInbox: (key) => this.queue.drain(key),
      },
      options,
    );
  }

  /** The stored session: info plus its lifecycle state and settings. Never changes the version. */
  async getSession(target: string | SessionKey): Promise<SessionView> {
    const key = this.toKey(target);
    const record = await this.load(key);
    const owner = await runOwner(this.store, key, this.executing.has(cacheKey(key)));
    return describeSession(record, owner);
  }

  async getSessionInfo(target: string | SessionKey): Promise<SessionInfo> {
    const key = this.toKey(target);
    const { snapshot: _snapshot, machineVersion: _v, ...info } = await this.load(key);
    return info;
  }

  /**
   * A page of one user's sessions (with a `scope`: only the scope's own session).
   * @throws TypeError at the call for an unknown query name, a `limit` that is not a positive
   *   integer, an unknown `status`, or a `userId` or `cursor` that is not a string.
   */
  listSessions(query: ListSessionsQuery = {}): Promise<SessionPage> {
    checkListQuery(query);
    return this.listChecked(query);
  }

  private async listChecked(query: ListSessionsQuery): Promise<SessionPage> {
    const { scope } = this;
    if (scope && query.userId !== scope.userId) return { sessions: [], nextCursor: undefined };
    return pageInScope(await this.store.list(query), scope);
  }

  /**
   * Starts firing approval deadlines on their own: every run of this runtime's store (with a
   * `scope`: of its session) whose approval deadline has passed is continued, the overdue calls
   * rejected with reason `timeout`, first those missed while no process ran, then each as its
   * deadline comes (waited on with the runtime's clock). A run this process is executing is
   * tried again later; other errors go to `onError` and never stop the scheduler.
   * @throws TypeError for bad options, or a store without a deadline index.
   * @example
   * const scheduler = runtime.startScheduler({ onError: (e) => log.warn(e) });
   * // ... on shutdown
   * await scheduler.stop();
   */
  startScheduler(options: ApprovalSchedulerOptions = {}): ApprovalSchedulerHandle {
    checkSchedulerOptions('runtime.startScheduler()', options);
    return new ApprovalScheduler(
      {
        store: deadlineIndexOf(this.store),
        clock: this.clock,
        scope: this.scope,
        execute: (key, action) => this.execute(key, action),
        onSaved: (listener) => this.on('SessionSaved', (event) => listener(event.record)),
      },
      options,
    );
  }

  /** A page of one user's audit log (`userId` required), see `AuditQuery`. */
  auditLog(query: AuditQuery): Promise<AuditPage> {
    return this.audit.read(query);
  }

  /** Every entry the query selects as JSON lines (one entry a line, `\n`-terminated). */
  exportAudit(query: AuditQuery): AsyncIterable<string> {
    return this.audit.export(query);
  }

  /** Drops what the runtime caches of a session (after a purge). */
  forget(key: SessionKey): void {
    this.cache.forget(key);
  }

  /** The key of `target`; outside the runtime's scope it is not found. */
  private toKey(target: string | SessionKey): SessionKey {
    return keyInScope(target, this.scope);
  }

  /** Loads and checks a session for reading (record, listing entry and snapshot). */
  private load(key: SessionKey): Promise<SessionRecord> {
    return this.loader.load(key);
  }

  /** A fresh session record in `active.idle`. */
  newRecord(
    key: SessionKey,
    input: Partial<SessionMachineContext> = {},
  ): Omit<SessionRecord, 'version'> {
    return newSessionRecord(key, this.clock.now(), input);
  }
}
