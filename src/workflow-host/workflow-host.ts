import type { AnyStateMachine } from 'xstate';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/new-id.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import type { SessionLease } from '../persistence/session-leases.js';
import { hasLeases, hasMessageInbox } from '../persistence/store-supports.js';
import { emptyTotals } from '../persistence/session-store.js';
import {
  SessionConflictError,
  SessionNotFoundError,
  LeaseLostError,
} from '../errors/session-errors.js';
import {
  EventNotAcceptedError,
  WorkflowDefinitionChangedError,
  WorkflowExistsError,
  WorkflowMismatchError,
  WorkflowNotFoundError,
  WorkflowCancelledError,
} from '../errors/workflow-errors.js';
import { WorkflowInstance } from './workflow-instance.js';
import { acceptedEvents, definitionChanges, type DefinitionShape } from './machine-definition.js';
import { readInstanceSnapshot, type HostMeta, type InstanceSnapshot } from './instance-record.js';
import { commandSubmission, type InstanceCommand } from './instance-command.js';
import { instanceKey } from './instance-key.js';
import type { MessageInbox } from '../persistence/message-inbox.js';

/** An instance driven here, and the command it was driven for (settled once that was saved). */
export interface Driven {
  instance: WorkflowInstance;
  applied: Promise<void> | undefined;
}

/** A migration of a stored machine snapshot from one `version` to the next. */
export type WorkflowMigration = (snapshot: Record<string, unknown>) => Record<string, unknown>;

/** What a host is made of (checked by `workflows()`). */
export interface WorkflowHostConfig {
  name: string;
  /** The app's machine with the host's durable actors provided. */
  machine: AnyStateMachine;
  shape: DefinitionShape;
  version: number;
  /** `migrations[n]` turns a snapshot saved by version `n` into one of version `n + 1`. */
  migrations: Readonly<Record<number, WorkflowMigration>>;
  store: SessionStore;
  clock: Clock;
  /** This process's name in leases. */
  owner: string;
  leaseTtlMs: number;
  /** How often a live instance reads its inbox for commands of other processes. */
  pollIntervalMs: number;
}

/**
 * Hosts the instances of one app machine: starts them, restores them from the store to apply
 * what reaches them (events, timers due, decisions, cancels), keeps them in memory only while
 * something runs for them in this process, and holds each one's lease meanwhile, so that one
 * process at a time drives an instance.
 */
export class WorkflowHost {
  private readonly live = new Map<string, WorkflowInstance>();
  private readonly bySystem = new WeakMap<object, WorkflowInstance>();
  /** One restore at a time per instance in this process. */
  private readonly driving = new Map<string, Promise<Driven | undefined>>();
  private readonly inbox: MessageInbox;
  private closed = false;
  private readonly savedListeners = new Set<(nextTimerAt: number) => void>();

  constructor(readonly config: WorkflowHostConfig) {
    if (!hasMessageInbox(config.store)) {
      throw new TypeError(
        `workflows(): the store keeps no message inbox (queueMessage, queuedMessages, dropQueuedMessage): events reach an instance through it`,
      );
    }
    this.inbox = config.store;
  }

  /** Tells `listener` of each save that holds a timer (its earliest due time); returns the unsubscribe. */
  onSaved(listener: (nextTimerAt: number) => void): () => void {
    this.savedListeners.add(listener);
    return () => this.savedListeners.delete(listener);
  }

  /** The instance whose actors run in `system` (how a durable actor finds its instance). */
  instanceOf(system: unknown): WorkflowInstance | undefined {
    return this.bySystem.get(system as object);
  }

  /** The live instance at `key` in this process, if any. */
  liveInstance(key: SessionKey): WorkflowInstance | undefined {
    return this.live.get(liveKey(key));
  }

  // ---------------------------------------------------------------- start

  /** Starts a new instance (`WorkflowExistsError` if the id is taken); resolves once saved. */
  async start(id: string, userId: string | undefined, input: unknown): Promise<SessionRecord> {
    const key = instanceKey(id, userId);
    const { clock } = this.config;
    const lease = await this.acquire(key);
    if (lease === null) throw new WorkflowExistsError(id);
    const now = clock.now();
    const meta: HostMeta = {
      runId: newId(),
      fingerprint: this.config.shape.fingerprint,
      version: this.config.version,
      states: this.config.shape.states,
      seq: 0,
      steps: {},
      timers: [],
      events: [],
      links: {},
    };
    const record: SessionRecord = {
      sessionId: key.sessionId,
      userId,
      version: 0,
      status: 'active',
      createdAt: now,
      updatedAt: now,
      parentId: undefined,
      historyLength: 0,
      usage: emptyTotals(),
      workflow: this.config.name,
      machineVersion: `workflow/${this.config.name}@${this.config.version}`,
      snapshot: undefined,
    };
    const instance = new WorkflowInstance(id, record, meta, this.deps(), lease, false);
    this.live.set(liveKey(key), instance);
    try {
      instance.start({ input });
      await instance.settle();
    } catch (error) {
      instance.drop(error);
      await this.release(lease);
      if (error instanceof SessionConflictError) throw new WorkflowExistsError(id);
      throw error;
    }
    this.keepAlive(instance);
    await this.afterWork(instance);
    return this.idle(instance);
  }

  /**
   * Resolves with the instance's record once nothing runs for it in this process any more (its
   * steps finished, its agents wait or ended); rejects with why it was dropped.
   */
  private async idle(instance: WorkflowInstance): Promise<SessionRecord> {
    await instance.gone;
    if (instance.failure !== undefined) throw instance.failure;
    return instance.record;
  }

  // ---------------------------------------------------------------- commands

  /**
   * Queues `command` in the instance's inbox and drives the instance (here, when no other
   * process holds it); resolves once the command was applied and saved, by this process or
   * the one that holds the instance. An error of the command (an event the state does not
   * accept, a call no agent waits for) rejects here when applied here.
   */
  async submit(key: SessionKey, id: string, command: InstanceCommand): Promise<void> {
    const record = await this.read(key, id);
    if (command.kind === 'event' && !this.precheck(key, id, record, command)) return;
    const submission = commandSubmission(key, command, this.config.clock.now());
    const queued = await this.inbox.queueMessage(submission);
    for (;;) {
      let instance = this.liveInstance(key);
      let applied: Promise<void> | undefined;
      if (instance && !instance.stopped) {
        applied = instance.waitFor(queued.id);
        await instance.drain();
      } else {
        const restored = await this.drive(key, id, queued.id);
        instance = restored?.instance;
        applied = restored?.applied;
      }
      if (instance && applied && instance.took(queued.id)) {
        await applied;
        await this.afterWork(instance);
        await this.idle(instance);
        return;
      }
      instance?.forget(queued.id);
      // Not taken here: taken by the process that holds the instance, or still waiting for it.
      if (await this.takenElsewhere(key, id, queued.id, command)) return;
    }
  }

  /**
   * Refuses an event before it is queued (nothing stored changes) when the instance's state
   * does not accept it; false when it was applied before (same `eventId`): nothing to do.
   */
  private precheck(
    key: SessionKey,
    id: string,
    record: SessionRecord,
    command: InstanceCommand & { kind: 'event' },
  ): boolean {
    const live = this.liveInstance(key);
    const stored = this.checkedSnapshot(key, id, record);
    if (command.eventId !== undefined) {
      const events = live && !live.stopped ? live.meta.events : stored.host.events;
      if (events.includes(command.eventId)) return false;
    }
    if (stored.host.cancelled) throw new WorkflowCancelledError(id);
    const snapshot =
      live && !live.stopped
        ? live.snapshot()
        : this.config.machine.resolveState({
            value: stored.machine.value as never,
            context: stored.machine.context,
          });
    const active = record.status === 'active' && snapshot.status === 'active';
    if (!active || !snapshot.can(command.event)) {
      throw new EventNotAcceptedError(
        id,
        command.event.type,
        snapshot.value,
        active ? acceptedEvents(snapshot) : [],
      );
    }
    return true;
  }

  /**
   * Whether the entry left the inbox (another process took it: an event it refused is
   * `EventNotAcceptedError` here too); while it waits, sleeps one poll interval on the clock.
   */
  private async takenElsewhere(
    key: SessionKey,
    id: string,
    queuedId: string,
    command: InstanceCommand,
  ): Promise<boolean> {
    const waiting = await this.inbox.queuedMessages(key, { limit: 1000 });
    if (waiting.some((m) => m.id === queuedId)) {
      const { clock, pollIntervalMs } = this.config;
      await clock.sleepUntil(clock.now() + pollIntervalMs);
      return false;
    }
    if (command.kind === 'event') {
      const record = await this.read(key, id);
      const snapshot = readInstanceSnapshot(key.sessionId, record.snapshot);
      if (!snapshot.host.events.includes(command.eventId ?? queuedId)) {
        throw new EventNotAcceptedError(id, command.event.type, snapshot.machine.value, []);
      }
    }
    return true;
  }

  /**
   * Restores the instance and applies what waits for it (inbox, timers due), unless another
   * process holds it (`undefined`). Unloads it again once nothing runs for it here.
   */
  async drive(key: SessionKey, id: string, queuedId?: string): Promise<Driven | undefined> {
    const k = liveKey(key);
    const live = this.live.get(k);
    if (live && !live.stopped) {
      const applied = queuedId === undefined ? undefined : live.waitFor(queuedId);
      await live.drain();
      await live.settle();
      await this.afterWork(live);
      return { instance: live, applied };
    }
    const running = this.driving.get(k);
    if (running) return running;
    const driving = this.restore(key, id, queuedId).finally(() => this.driving.delete(k));
    this.driving.set(k, driving);
    return driving;
  }

  private async restore(
    key: SessionKey,
    id: string,
    queuedId?: string,
  ): Promise<Driven | undefined> {
    if (this.closed) return undefined;
    const lease = await this.acquire(key);
    if (lease === null) return undefined;
    let instance: WorkflowInstance;
    try {
      const record = await this.read(key, id);
      const stored = this.checkedSnapshot(key, id, record);
      instance = new WorkflowInstance(id, record, stored.host, this.deps(), lease, true);
      this.live.set(liveKey(key), instance);
      instance.start({ snapshot: stored.machine });
    } catch (error) {
      this.live.delete(liveKey(key));
      await this.release(lease);
      throw error;
    }
    this.keepAlive(instance);
    const applied = queuedId === undefined ? undefined : instance.waitFor(queuedId);
    applied?.catch(() => undefined); // its caller reads it
    try {
      await instance.drain();
      await instance.settle();
    } catch (error) {
      instance.drop(error);
      throw error;
    }
    await this.afterWork(instance);
    return { instance, applied };
  }

  /** After work on a live instance: unloaded once idle, then driven again if its inbox filled. */
  private async afterWork(instance: WorkflowInstance): Promise<void> {
    if (instance.stopped || !instance.idle()) return;
    instance.unload();
    const released = await this.release(instance.lease);
    const maybeQueued =
      released === undefined ? this.config.store.acquireLease !== undefined : released.queued;
    if (!maybeQueued || this.closed) return;
    const waiting = await this.inbox.queuedMessages(instance.key, { limit: 1 });
    if (waiting.length > 0) await this.drive(instance.key, instance.id);
  }

  /** Renews the lease and reads the inbox while the instance lives here. */
  private keepAlive(instance: WorkflowInstance): void {
    const { clock, leaseTtlMs, pollIntervalMs } = this.config;
    const every = Math.max(1, Math.min(pollIntervalMs, Math.floor(leaseTtlMs / 3)));
    const loop = async (): Promise<void> => {
      while (!instance.stopped) {
        try {
          await clock.sleepUntil(clock.now() + every, instance.stopping.signal);
        } catch {
          return; // stopped
        }
        if (instance.lease) {
          const store = this.config.store;
          const renewed = hasLeases(store)
            ? await store.renewLease(instance.lease, leaseTtlMs).catch(() => undefined)
            : instance.lease;
          if (!renewed) {
            instance.drop(new LeaseLostError(instance.key.sessionId, this.config.owner));
            return;
          }
          instance.lease = renewed;
        }
        await instance.drain().catch((error: unknown) => instance.drop(error));
        await this.afterWork(instance).catch(() => undefined);
      }
    };
    void loop();
  }

  // ---------------------------------------------------------------- reads

  /** The stored record of instance `id`, checked to be one of this workflow's. */
  async read(key: SessionKey, id: string): Promise<SessionRecord> {
    let record: SessionRecord;
    try {
      record = await this.config.store.load(key);
    } catch (error) {
      if (error instanceof SessionNotFoundError) throw new WorkflowNotFoundError(id);
      throw error;
    }
    if (record.workflow !== this.config.name) {
      throw new WorkflowMismatchError(id, this.config.name, record.workflow);
    }
    return record;
  }

  /**
   * The record's snapshot, checked against this definition: the same fingerprint, or an older
   * `version` migrated to this one; else `WorkflowDefinitionChangedError` naming what changed.
   */
  checkedSnapshot(key: SessionKey, id: string, record: SessionRecord): InstanceSnapshot {
    const stored = readInstanceSnapshot(key.sessionId, record.snapshot);
    const { shape, version, migrations } = this.config;
    const meta = stored.host;
    if (meta.version > version) {
      throw new WorkflowDefinitionChangedError(id, [
        `saved by version ${meta.version} of the workflow, this is version ${version}`,
      ]);
    }
    let machine = stored.machine;
    if (meta.version < version) {
      for (let v = meta.version; v < version; v++) {
        const migrate = migrations[v];
        if (!migrate) {
          throw new WorkflowDefinitionChangedError(id, [
            `no migration from version ${v} to ${v + 1}`,
          ]);
        }
        machine = migrate(machine);
      }
    } else if (meta.fingerprint !== shape.fingerprint) {
      throw new WorkflowDefinitionChangedError(id, definitionChanges(meta.states, shape.states));
    }
    try {
      this.config.machine.resolveState({
        value: machine.value as never,
        context: machine.context,
      });
    } catch (error) {
      throw new WorkflowDefinitionChangedError(id, [
        `its state ${JSON.stringify(machine.value)} is not one of this machine (${String(error)})`,
      ]);
    }
    return {
      format: 1,
      machine,
      host: { ...meta, version, fingerprint: shape.fingerprint, states: shape.states },
    };
  }

  // ---------------------------------------------------------------- leases

  /** The lease for this process: `undefined` without leases, `null` while another holds it. */
  private async acquire(key: SessionKey): Promise<SessionLease | undefined | null> {
    const { store, owner, leaseTtlMs } = this.config;
    if (!hasLeases(store)) return undefined;
    return (await store.acquireLease(key, owner, leaseTtlMs)) ?? null;
  }

  private async release(lease: SessionLease | undefined): Promise<{ queued: boolean } | undefined> {
    const { store } = this.config;
    if (!lease || !hasLeases(store)) return { queued: false };
    const released = await store.releaseLease(lease).catch(() => undefined);
    return released ?? undefined;
  }

  private deps() {
    return {
      store: this.config.store,
      clock: this.config.clock,
      machine: this.config.machine,
      register: (system: unknown, instance: WorkflowInstance) =>
        this.bySystem.set(system as object, instance),
      saved: (instance: WorkflowInstance) => {
        const at = instance.record.approvalDeadline;
        if (at !== undefined) for (const listener of this.savedListeners) listener(at);
        // Once the save settled: nothing may run for it any more (a step finished, it ended).
        void Promise.resolve()
          .then(() => this.afterWork(instance))
          .catch(() => undefined);
      },
      released: (instance: WorkflowInstance) => {
        const k = liveKey(instance.key);
        if (this.live.get(k) === instance) this.live.delete(k);
      },
    };
  }

  /** Saves and unloads every live instance that is idle; drops the rest (their steps stop). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.driving.values()]);
    for (const instance of [...this.live.values()]) {
      try {
        await instance.flushed();
      } catch {
        // dropped already
      }
      if (!instance.stopped) instance.unload();
      await this.release(instance.lease);
    }
  }
}

function liveKey(key: SessionKey): string {
  return JSON.stringify([key.userId ?? null, key.sessionId]);
}
