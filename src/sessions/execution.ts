import type { RuntimeMemory } from '../memory/runtime-memory.js';
import { RunContext } from '../core/run-context.js';
import type { Clock } from '../core/clock.js';
import type { Durability } from '../core/durability-policy.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type { InspectionEvent } from 'xstate';
import type {
  SessionKey,
  SessionRecord,
  SessionStore,
  UsageTotals,
} from '../persistence/session-store.js';
import type { SessionLease } from '../persistence/session-leases.js';
import { AgentBinding, type BindingSource } from '../definition/agent-binding.js';
import type { SessionAction } from '../actions/session-action.js';
import { checkActionFits } from '../actions/fits-check.js';
import { checkRunDefinitions } from '../actions/definition-check.js';
import { isSubRun } from '../machines/agent-path.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { runMetadata } from '../runs/run-metadata.js';
import { storedRun } from '../runs/stored-run.js';
import { readRunJournals } from '../runs/stored-session-check.js';
import { hostDeps } from '../session-host/host-deps.js';
import type { SessionCache } from '../session-host/session-cache.js';
import type { SessionEventHub } from '../session-host/session-events.js';
import { SessionHost } from '../session-host/session-host.js';
import type { SessionLoader } from '../session-host/session-loader.js';
import { SubAgents } from '../session-host/sub-agents.js';
import { auditCancels } from './cancel-audit.js';
import { withTextDeltaFeed } from '../session-host/text-delta-feed.js';
import type { Observability } from '../telemetry/observability.js';
import type { SessionLog } from '../actors/session-log.js';
import { takeQueued } from './queued-take.js';
import type { RecoveryTurns } from '../session-host/recovery-turns.js';

/** A session read for an action, and its live host if it was kept. */
interface Loaded {
  audit: AuditTrail;
  record: SessionRecord;
  userUsage: UsageTotals;
  live: SessionHost | undefined;
  inspect: ((event: InspectionEvent) => void) | undefined;
}

/** The parts of its runtime an `Execution` works with. */
export interface ExecutionParts {
  store: SessionStore;
  source: BindingSource;
  clock: Clock;
  cache: SessionCache;
  hub: SessionEventHub;
  loader: SessionLoader;
  observability: Observability;
  /** The runtime's permission policy, if any. */
  permissions: PermissionPolicy | undefined;
  /** The runtime's durability (the action's own wins). */
  durability: Durability | undefined;
  /** The runtime's `maxRecoveries` (else the agent's). */
  maxRecoveries: number | undefined;
  /** The runtime's recovery turn (see `HostDeps.turns`). */
  turns: RecoveryTurns;
  newRecord(
    key: SessionKey,
    input?: Partial<SessionMachineContext>,
  ): Omit<SessionRecord, 'version'>;
  /** What the session's runs read of its message inbox before each model call (steers). */
  steerFor(key: SessionKey): ((log: SessionLog) => Promise<void> | undefined) | undefined;
  /** The agent's memory across sessions on this store (`AgentOptions.memory`), if it has one. */
  memory: RuntimeMemory | undefined;
}

/**
 * The execution stage of an action admitted to a session (see `Admission`): it loads the
 * session and checks that the action fits it (`checkActionFits`), binds the agent (and, on
 * first use, its sub-agents), puts the session into a `SessionHost` (its actor and step deps,
 * see session-host/run-wiring.ts), applies the action (a message starts its run there), then
 * saves through the host's committer and closes the host. One per runtime.
 */
export class Execution {
  constructor(private readonly parts: ExecutionParts) {}

  apply<R>(key: SessionKey, action: SessionAction<R>, lease: SessionLease | undefined): Promise<R> {
    return this.applyLoaded(key, action, lease).catch((error: unknown) => {
      // A failed action (a lost version check, a save or a restore that failed, bad stored
      // input) leaves nothing cached: the next action reads the session afresh.
      this.parts.cache.forget(key);
      throw error;
    });
  }

  private async applyLoaded<R>(
    key: SessionKey,
    action: SessionAction<R>,
    lease: SessionLease | undefined,
  ): Promise<R> {
    const ready = this.parts.observability.ready(); // loads @opentelemetry/api once something can record
    if (ready) await ready;
    const audit = new AuditTrail(
      key,
      () => this.parts.clock.now(),
      this.parts.source.options.redact,
    );
    const create = action.createIfMissing === true;
    const known = this.parts.cache.record(key);
    const { record, userUsage } = await this.parts.loader.loadForUpdate(
      key,
      create,
      audit,
      (k) => this.parts.newRecord(k),
      known,
    );
    // The session's live host, when the store returned exactly the record it saved: it is at
    // rest as that record holds it (no run child), so there is no history or journal to read,
    // and the action's transition is checked on its state (a failed check stops it, as the
    // failed action's `forget` would).
    const inspect = this.parts.hub.inspector(key);
    let live = this.parts.cache.take(key, record, this.parts.source);
    if (live && !live.inspectableBy(inspect)) {
      live.stop(); // inspected now and not then (or the reverse): restored, as without it
      live = undefined;
    }
    try {
      const { name } = this.parts.source.options;
      const state = live?.actor.getSnapshot();
      checkActionFits(key, record, action, this.parts.clock.now(), name, state);
      return await this.applyTo(key, action, lease, { audit, record, userUsage, live, inspect });
    } catch (error) {
      live?.stop(); // a host taken and not kept again is stopped (stopping twice does nothing)
      throw error;
    }
  }

  private async applyTo<R>(
    key: SessionKey,
    action: SessionAction<R>,
    lease: SessionLease | undefined,
    loaded: Loaded,
  ): Promise<R> {
    const { audit, record, userUsage, live, inspect } = loaded;
    const items = live ? [] : await this.parts.cache.history(this.parts.store, key, record);
    const journal = live ? [] : await readRunJournals(this.parts.store, key, record);
    const needsAgent = action.runs === true || storedRun(record.snapshot) !== undefined;
    const context = new RunContext({
      sessionId: key.sessionId,
      userId: key.userId,
      metadata: runMetadata(record, action.observe?.metadata),
    });
    const bound = needsAgent
      ? await this.parts.source.bind(context)
      : {
          binding: AgentBinding.inert(this.parts.source.options, context),
          release: async () => undefined,
        };
    const subAgents = new SubAgents(
      this.parts.source.options.name,
      bound.binding.tools.values(),
      bound.binding.context,
    );
    try {
      const { binding } = bound;
      if (action.continuesRun === true) {
        // A paused or crashed run goes on only with the definitions it started with.
        const own = {
          definition: binding.definition,
          compatibleWith: binding.options.compatibleWith,
        };
        await checkRunDefinitions(key, record, async (path) =>
          isSubRun(path) ? subAgents.definitionOf(path) : own,
        );
      }
      const deps = hostDeps({
        options: this.parts.source.options,
        binding,
        subAgents,
        key,
        record,
        clock: this.parts.clock,
        observe: withTextDeltaFeed(this.parts.hub, key, action.observe),
        journal,
        lease,
        observability: this.parts.observability,
        inspect,
        permissions: this.parts.permissions,
        durability: this.parts.durability,
        maxRecoveries: this.parts.maxRecoveries,
        turns: this.parts.turns,
        steer: action.runs === true ? this.parts.steerFor(key) : undefined,
        memory: this.parts.memory,
        onSaved: (saved, all) => {
          if (saved.status === 'deleted') this.parts.cache.forget(key);
          else this.parts.cache.remember(key, saved, all);
          this.parts.hub.emit('SessionSaved', { key, version: saved.version, record: saved });
        },
      });
      const host = live
        ? live.resume(deps)
        : new SessionHost(this.parts.store, key, record, items, deps);
      // A queued message's run takes it from the inbox with its first save, if still there.
      if (action.fromInbox) await takeQueued(this.parts.store, key, host.log, action.fromInbox);
      audit.attach(host, action, record);
      const cancelled = auditCancels(action.observe?.cancelSignal, host, audit);
      let result: R;
      let done = false;
      try {
        result = await action.apply({
          audit,
          key,
          host,
          store: this.parts.store,
          clock: this.parts.clock,
          binding,
          newRecord: (k, input) => this.parts.newRecord(k, input),
          userBudget: this.parts.source.options.userBudget,
          userUsage,
        });
        done = true;
      } finally {
        cancelled();
        // An action that succeeded may leave its host live at rest for the session's next one.
        const kept = await host.close(done).catch((error: unknown) => {
          this.parts.hub.emit('SessionSaveFailed', { key, error });
          throw error;
        });
        if (kept && !this.parts.cache.keep(key, host, this.parts.source)) host.stop();
      }
      this.parts.hub.emit('SessionActionExecuted', { key, action: action.name });
      return result;
    } finally {
      const subReleased = subAgents.release();
      await (subReleased ? Promise.all([bound.release(), subReleased]) : bound.release());
    }
  }
}
