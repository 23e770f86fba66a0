/* eslint-disable max-lines -- Long on purpose: one public service, SessionRuntime, each method
 * documented where its users read it; its parts live apart (an action's admission and its
 * execution, loader, cache, busy runs, live runs, scheduler, recovery, audit reader). */
import { RuntimeMemory } from '../memory/runtime-memory.js';
import { hasLeases } from '../persistence/store-supports.js';
import { BusyRuns } from './busy-runs.js';
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
import { DEFAULT_LEASE_TTL_MS } from '../runs/run-lease.js';
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
import { Admission } from './admission.js';
import { Execution } from './execution.js';
import { LiveRuns } from './live-runs.js';
import { MessageQueue } from './message-queue.js';
import { RecoveryTurns } from '../session-host/recovery-turns.js';
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
  /** The clock of its runs, deadlines and audit times (the option, the agent's, or the system's). */
  readonly clock: Clock;
  private readonly hub = new SessionEventHub();
  private readonly cache: SessionCache;
  private readonly scope: SessionKey | undefined;
  /** Sessions whose run is executing now (by `cacheKey`), in this runtime or its peers. */
  private readonly executing: Set<string>;
  /** How to wait for or cancel those runs, for the messages sent meanwhile. */
  private readonly busy: BusyRuns;
  /** This runtime's owner id in session leases and their length. */
  readonly leaseOwner: string;
  private readonly leaseTtlMs: number;
  private readonly audit: AuditReader;
  private readonly loader: SessionLoader;
  /** The first stage of an action: whether, when and under which lease it goes on. */
  private readonly admission: Admission;
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
    const leasing = lease !== false;
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
      leased: leasing && hasLeases(this.store),
    });
    this.loader = new SessionLoader(this.store, this.source.options, this.hub);
    const cached = options.cachedSessions ?? agent.cachedSessions ?? DEFAULT_CACHED_SESSIONS;
    this.cache = new SessionCache(cached, options.liveSessions ?? agent.liveSessions ?? cached);
    const execution = new Execution({
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
      memory: RuntimeMemory.of(agent.memory, this.store, this.clock),
    });
    this.admission = new Admission({
      store: this.store,
      clock: this.clock,
      hub: this.hub,
      executing: this.executing,
      busy: this.busy,
      live: this.live,
      queue: this.queue,
      execution,
      leasing,
      leaseOwner: this.leaseOwner,
      leaseTtlMs: this.leaseTtlMs,
    });
  }

  /** The name of the agent whose runs this runtime runs (and alone continues). */
  get agentName(): string {
    return this.source.options.name;
  }

  /**
   * @internal The agent whose runs this runtime runs (the inspector builds eval dataset rows
   * with its definition).
   */
  get agentSource(): BindingSource {
    return this.source;
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
    return this.admit(target, action);
  }

  /** The action's two stages: its admission (see `Admission`), then its execution. */
  private async admit<R>(target: string | SessionKey, action: SessionAction<R>): Promise<R> {
    return this.admission.admit(this.toKey(target), action);
  }

  /** Cancels the session's run wherever it executes (see `LiveRuns.cancel`); `by` is audited. */
  cancel(target: string | SessionKey, by?: string): Promise<void> {
    return this.live.cancel(this.toKey(target), by, (k, a) => this.execute(k, a));
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
        agentName: this.agentName,
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
