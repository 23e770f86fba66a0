/* eslint-disable max-lines -- Long on purpose: one class, the path of a command to an instance
 * (start, submit, drive, restore, idle, unload) read top to bottom; reads, leases and checks are
 * files of their own (stored-instances, instance-leases, command-effects).
 */
import type { Clock } from '../core/clock.js';
import { newId } from '../core/new-id.js';
import type { SessionKey, SessionRecord } from '../persistence/session-store.js';
import { emptyTotals } from '../persistence/session-store.js';
import type { MessageInbox } from '../persistence/message-inbox.js';
import { hasMessageInbox } from '../persistence/store-supports.js';
import { SessionConflictError } from '../errors/session-errors.js';
import { EventNotAcceptedError, WorkflowExistsError } from '../errors/workflow-errors.js';
import { WorkflowInstance, type InstanceDeps } from './workflow-instance.js';
import { readInstanceSnapshot, type HostMeta, type InstanceLink } from './instance-record.js';
import { commandSubmission, type InstanceCommand } from './instance-command.js';
import { instanceKey } from './instance-key.js';
import { StoredInstances, type StoredDefinition } from './stored-instances.js';
import { childEndOf, type ChildEnded } from './child-workflow.js';
import { InstanceLeases } from './instance-leases.js';

/** What a host is made of (checked by `workflows()`). */
export interface WorkflowHostConfig extends StoredDefinition {
  clock: Clock;
  /** This process's name in leases. */
  owner: string;
  leaseTtlMs: number;
  /** How often a live instance reads its inbox for commands of other processes. */
  pollIntervalMs: number;
  /** Cancels the run of a linked agent whose state the machine left. */
  cancelLinked?: ((link: InstanceLink, userId: string | undefined) => Promise<unknown>) | undefined;
}

/** An instance driven here, and the command it was driven for (settled once that was saved). */
export interface Driven {
  instance: WorkflowInstance;
  applied: Promise<void> | undefined;
}

/**
 * Hosts the instances of one app machine: starts them, restores them from the store to apply
 * what reaches them (commands through the inbox, timers due), keeps them in memory only while
 * something runs for them in this process, and holds each one's lease meanwhile, so that one
 * process at a time drives an instance.
 */
export class WorkflowHost {
  readonly stored: StoredInstances;
  private readonly leases: InstanceLeases;
  private readonly inbox: MessageInbox;
  private readonly live = new Map<string, WorkflowInstance>();
  private readonly bySystem = new WeakMap<object, WorkflowInstance>();
  /** One restore at a time per instance in this process. */
  private readonly driving = new Map<string, Promise<Driven | undefined>>();
  private readonly savedListeners = new Set<(nextTimerAt: number) => void>();
  private closed = false;
  /** Hosts of the workflows whose instances invoke this one's, by name. */
  private readonly parents = new Map<string, WorkflowHost>();
  /** Ended children whose parent was told. */
  private readonly told = new WeakSet<WorkflowInstance>();
  /** The instance whose actor `createActor` is making now (synchronously). */
  private constructing: WorkflowInstance | undefined;

  constructor(readonly config: WorkflowHostConfig) {
    const { store } = config;
    if (!hasMessageInbox(store)) {
      throw new TypeError(
        'workflows(): the store keeps no message inbox (queueMessage, queuedMessages, dropQueuedMessage): commands reach an instance through it',
      );
    }
    this.inbox = store;
    this.stored = new StoredInstances(config);
    this.leases = new InstanceLeases(store, config.clock, config.owner, config.leaseTtlMs);
  }

  /** Tells `listener` of each save that holds a timer (its earliest due time); returns the unsubscribe. */
  onSaved(listener: (nextTimerAt: number) => void): () => void {
    this.savedListeners.add(listener);
    return () => this.savedListeners.delete(listener);
  }

  /** The instance whose actors run in `system` (how a durable actor finds its instance). */
  instanceOf(system: unknown): WorkflowInstance | undefined {
    return this.bySystem.get(system as object) ?? this.constructing;
  }

  /** The live instance at `key` in this process, if any. */
  liveInstance(key: SessionKey): WorkflowInstance | undefined {
    const instance = this.live.get(liveKey(key));
    return instance && !instance.stopped ? instance : undefined;
  }

  /**
   * Starts (once) the child instance `id` a parent invoked; resolves with how it ended when it
   * did (at once, or before this process restored the parent), else `undefined`: the parent
   * hears of its end through its inbox.
   */
  async ensureChild(
    id: string,
    userId: string | undefined,
    input: unknown,
    parent: NonNullable<HostMeta['parent']>,
  ): Promise<ChildEnded | undefined> {
    const key = instanceKey(id, userId);
    // A restored parent finds its child started: read, not started again.
    const known = await this.stored.read(key, id).catch(() => undefined);
    if (known) return childEndOf(known);
    let record: SessionRecord;
    try {
      record = await this.start(id, userId, input, parent);
    } catch (error) {
      if (!(error instanceof WorkflowExistsError)) throw error;
      record = await this.stored.read(key, id);
    }
    return childEndOf(record);
  }

  /** Hosts `parent`'s instances too: they invoke this workflow's (their end is told there). */
  adoptParent(parent: WorkflowHost): void {
    this.parents.set(parent.config.name, parent);
  }

  /** Tells an ended child's parent, through the parent's inbox (once per instance here). */
  private async tellParent(instance: WorkflowInstance): Promise<void> {
    const from = instance.meta.parent;
    if (!from || this.told.has(instance)) return;
    this.told.add(instance);
    const ended = childEndOf(instance.record);
    if (!ended) return;
    const key = instanceKey(from.id, instance.userId);
    const command = { kind: 'child' as const, actorId: from.actorId, ...ended };
    await this.inbox.queueMessage(commandSubmission(key, command, this.config.clock.now()));
    await this.parents.get(from.workflow)?.drive(key, from.id);
  }

  /** Starts a new instance (`WorkflowExistsError` if the id is taken); resolves once idle here. */
  async start(
    id: string,
    userId: string | undefined,
    input: unknown,
    parent?: HostMeta['parent'],
  ): Promise<SessionRecord> {
    const key = instanceKey(id, userId);
    const { clock, shape, version, name } = this.config;
    const lease = await this.leases.acquire(key);
    if (lease === null) throw new WorkflowExistsError(id);
    const now = clock.now();
    const meta: HostMeta = {
      runId: newId(),
      fingerprint: shape.fingerprint,
      version,
      states: shape.states,
      seq: 0,
      steps: {},
      timers: [],
      events: [],
      links: {},
      ...(parent ? { parent } : {}),
    };
    const record: SessionRecord = {
      sessionId: key.sessionId,
      userId,
      version: 0,
      status: 'active',
      createdAt: now,
      updatedAt: now,
      parentId: parent ? instanceKey(parent.id, userId).sessionId : undefined,
      historyLength: 0,
      usage: emptyTotals(),
      workflow: name,
      machineVersion: `workflow/${name}@${version}`,
      snapshot: undefined,
    };
    const instance = new WorkflowInstance(id, record, meta, this.deps(), lease, false);
    this.live.set(liveKey(key), instance);
    try {
      instance.start({ input });
      await instance.hold(() => instance.settle());
    } catch (error) {
      instance.drop(error);
      await this.leases.release(lease);
      if (error instanceof SessionConflictError) throw new WorkflowExistsError(id);
      throw error;
    }
    this.keepAlive(instance);
    await this.afterWork(instance);
    return this.idle(instance);
  }

  /**
   * Queues `command` in the instance's inbox and drives the instance (here, unless another
   * process holds it); resolves once it was applied and saved, by this process (then once the
   * instance is idle here) or the one that holds the instance. An error of the command applied
   * here (an event the state does not accept, a call no agent waits for) rejects.
   */
  async submit(key: SessionKey, id: string, command: InstanceCommand): Promise<void> {
    const record = await this.stored.read(key, id);
    if (command.kind === 'event') {
      const stored = this.stored.checked(key, id, record);
      const live = this.liveInstance(key);
      const view = live && { meta: live.meta, snapshot: live.snapshot() };
      if (!this.stored.accepts(id, record, stored, view, command)) return;
    }
    const submission = commandSubmission(key, command, this.config.clock.now());
    const queued = await this.inbox.queueMessage(submission);
    for (;;) {
      let instance = this.liveInstance(key);
      let applied: Promise<void> | undefined;
      if (instance) {
        const live = instance;
        applied = live.inbox.waitFor(queued.id);
        applied.catch(() => undefined); // read below
        await live.hold(() => live.inbox.drain());
      } else {
        const restored = await this.drive(key, id, queued.id);
        instance = restored?.instance;
        applied = restored?.applied;
      }
      if (instance && applied && instance.inbox.took(queued.id)) {
        await applied;
        await this.afterWork(instance);
        await this.idle(instance);
        return;
      }
      instance?.inbox.forget(queued.id);
      // Not taken here: taken by the process that holds the instance, or still waiting for it.
      if (await this.takenElsewhere(key, id, queued.id, command)) return;
    }
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
      const record = await this.stored.read(key, id);
      const snapshot = readInstanceSnapshot(key.sessionId, record.snapshot);
      if (snapshot.host.refused?.includes(queuedId)) {
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
    const live = this.liveInstance(key);
    if (live) {
      const applied = queuedId === undefined ? undefined : live.inbox.waitFor(queuedId);
      applied?.catch(() => undefined); // its caller reads it
      await live.hold(async () => {
        await live.inbox.drain();
        await live.settle();
      });
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
    const lease = await this.leases.acquire(key);
    if (lease === null) return undefined;
    let instance: WorkflowInstance;
    try {
      const record = await this.stored.read(key, id);
      const stored = this.stored.checked(key, id, record);
      instance = new WorkflowInstance(id, record, stored.host, this.deps(), lease, true);
      this.live.set(liveKey(key), instance);
      instance.start({ snapshot: stored.machine });
    } catch (error) {
      this.live.delete(liveKey(key));
      await this.leases.release(lease);
      throw error;
    }
    this.keepAlive(instance);
    const applied = queuedId === undefined ? undefined : instance.inbox.waitFor(queuedId);
    applied?.catch(() => undefined); // its caller reads it
    try {
      await instance.hold(async () => {
        await instance.inbox.drain();
        await instance.settle();
      });
    } catch (error) {
      instance.drop(error);
      throw error;
    }
    await this.afterWork(instance);
    return { instance, applied };
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

  /** After work on a live instance: unloaded once idle, then driven again if its inbox filled. */
  private async afterWork(instance: WorkflowInstance): Promise<void> {
    if (instance.stopped || !instance.idle()) return;
    instance.unload();
    const released = await this.leases.release(instance.lease);
    if (released?.queued === false || this.closed) return;
    const waiting = await this.inbox.queuedMessages(instance.key, { limit: 1 });
    if (waiting.length > 0) await this.drive(instance.key, instance.id);
  }

  /** While the instance lives here: its lease renewed, its inbox read on the clock. */
  private keepAlive(instance: WorkflowInstance): void {
    this.leases.keepAlive(instance, this.config.pollIntervalMs, async () => {
      await instance.hold(() => instance.inbox.drain());
      await this.afterWork(instance);
    });
  }

  private deps(): InstanceDeps {
    return {
      store: this.config.store,
      clock: this.config.clock,
      machine: this.config.machine,
      constructing: (instance, create) => {
        this.constructing = instance;
        try {
          return create();
        } finally {
          this.constructing = undefined;
        }
      },
      register: (system, instance) => this.bySystem.set(system as object, instance),
      saved: (instance) => {
        const at = instance.record.approvalDeadline;
        if (at !== undefined) for (const listener of this.savedListeners) listener(at);
        // Once the save settled: nothing may run for it any more (a step finished, it ended).
        void Promise.resolve()
          .then(() => this.afterWork(instance))
          .catch(() => undefined);
        if (instance.ended()) void this.tellParent(instance).catch(() => undefined);
      },
      linkLeft: (link, userId) => {
        void this.config.cancelLinked?.(link, userId).catch(() => undefined);
      },
      unheld: (instance) => {
        void Promise.resolve()
          .then(() => this.afterWork(instance))
          .catch(() => undefined);
      },
      released: (instance) => {
        const k = liveKey(instance.key);
        if (this.live.get(k) === instance) this.live.delete(k);
        // Dropped (a failed save): its lease, if still its own, is given up.
        if (instance.failure !== undefined) void this.leases.release(instance.lease);
      },
    };
  }

  /** Unloads every live instance after its last save (running steps stop; they are in doubt). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.driving.values()]);
    for (const instance of [...this.live.values()]) {
      await instance.flushed().catch(() => undefined);
      if (!instance.stopped) instance.unload();
      await this.leases.release(instance.lease);
    }
  }
}

function liveKey(key: SessionKey): string {
  return JSON.stringify([key.userId ?? null, key.sessionId]);
}
