/* eslint-disable max-lines -- Long on purpose: one class, a live instance's lifecycle (start or
 * restore, macrosteps, what it writes, leaving memory) over the parts it owns; each part is a file of
 * its own (steps, saves, inbox, timers, command effects, the macrostep journal, what a save writes).
 */
import {
  createActor,
  type Actor,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type Snapshot,
} from 'xstate';
import type { Clock } from '../core/clock.js';
import type {
  JournalEntry,
  SessionKey,
  SessionRecord,
  SessionStore,
} from '../persistence/session-store.js';
import type { SessionLease } from '../persistence/session-leases.js';
import type { WorkflowEventOutput } from '../machines/schemas/workflow-journal.js';
import { MacrostepJournal } from './macrostep-journal.js';
import { applyCommand } from './command-effects.js';
import { instanceRecord, writeInstance } from './instance-writes.js';
import { DurableClock } from './durable-clock.js';
import {
  KEPT_EVENT_IDS,
  type HostMeta,
  type InstanceLink,
  type InstanceSnapshot,
} from './instance-record.js';
import type { StepDefinition } from './step-definition.js';
import type { InstanceCommand } from './instance-command.js';
import { usageOfAgentOutput, addUsage } from './linked-usage.js';
import { InstanceSteps } from './instance-steps.js';
import { InstanceSaves } from './instance-saves.js';
import { InstanceInbox } from './instance-inbox.js';
import { rescheduleTimers, timersNow, type ActorPaths } from './instance-timers.js';
import { agentAwaitingApproval, agentRunning } from './linked-agents.js';

/** What an instance needs of its host. */
export interface InstanceDeps {
  store: SessionStore;
  clock: Clock;
  /** The machine with the host's durable actors provided. */
  machine: AnyStateMachine;
  /** Runs `create` with the instance as the one whose actors are created meanwhile. */
  constructing<T>(instance: WorkflowInstance, create: () => T): T;
  /** Registers the instance as the one its actors' system belongs to. */
  register(system: unknown, instance: WorkflowInstance): void;
  /** Told of each save. */
  saved(instance: WorkflowInstance): void;
  /** Told of a linked child whose state the machine left before it ended (it is cancelled). */
  linkLeft(link: InstanceLink, userId: string | undefined): void;
  /** Told when the host's last work on it ended (it may leave memory now). */
  unheld(instance: WorkflowInstance): void;
  /** Told when the instance left memory (unloaded or dropped). */
  released(instance: WorkflowInstance): void;
}

/**
 * One hosted app machine's instance held in memory: its XState actor and what the host keeps
 * beside it (`HostMeta`). After each macrostep, what changed is saved in one atomic batch with
 * the journal of what happened (the events it took, with the state reached; the steps that
 * finished) and the inbox entries it took, under its lease (`InstanceSaves`). Its durable steps
 * are `InstanceSteps`, its inbox `InstanceInbox`, its delays durable timers (`DurableClock`).
 */
export class WorkflowInstance {
  readonly key: SessionKey;
  record: SessionRecord;
  actor!: Actor<AnyStateMachine>;
  /** Aborted when the instance leaves memory: its steps' signals. */
  readonly stopping = new AbortController();
  readonly steps: InstanceSteps;
  readonly inbox: InstanceInbox;
  private readonly saves: InstanceSaves;
  private readonly clock: DurableClock;
  private readonly events: MacrostepJournal;
  private stoppedWith: Error | undefined;
  private unloaded = false;
  /** Work of the host on it under way (`hold`). */
  private holds = 0;
  private settleGone!: () => void;
  /** Resolves once the instance left memory (unloaded: nothing ran for it here; or dropped). */
  readonly gone = new Promise<void>((resolve) => {
    this.settleGone = resolve;
  });

  constructor(
    readonly id: string,
    record: SessionRecord,
    readonly meta: HostMeta,
    private readonly deps: InstanceDeps,
    public lease: SessionLease | undefined,
    /** Whether the record exists in the store (else the first save creates it). */
    private created: boolean,
  ) {
    this.key = { sessionId: record.sessionId, userId: record.userId };
    this.record = record;
    this.events = new MacrostepJournal(meta, (actorId, output) => this.rollUp(actorId, output));
    this.clock = new DurableClock(deps.clock, (fire) =>
      this.events.from({ source: 'timer' }, fire),
    );
    this.saves = new InstanceSaves(
      (journal, dequeued) => this.write(journal, dequeued),
      () => deps.saved(this),
      (error) => this.drop(error),
      () => this.stopped,
    );
    this.steps = new InstanceSteps({
      id,
      key: this.key,
      meta,
      store: deps.store,
      clock: deps.clock,
      stopping: this.stopping.signal,
      markDirty: () => this.saves.markDirty(),
      saved: () => this.saves.saved(),
    });
    this.inbox = new InstanceInbox(
      id,
      this.key,
      deps.store,
      this.saves,
      (command, queuedId) => {
        try {
          this.execute(command, queuedId);
        } catch (error) {
          // Refused: kept, so that a sender in another process tells it from an entry applied.
          this.meta.refused = [...(this.meta.refused ?? []), queuedId].slice(-KEPT_EVENT_IDS);
          throw error;
        }
      },
      () => this.stopped,
    );
  }

  /** The workflow's name. */
  get workflow(): string {
    return this.record.workflow ?? '';
  }

  get userId(): string | undefined {
    return this.key.userId;
  }

  /** Starts the actor: anew with `input`, or from the stored machine snapshot. */
  start(from: { input: unknown } | { snapshot: InstanceSnapshot['machine'] }): void {
    const restore = 'snapshot' in from;
    if (restore) this.steps.restoring(this.meta.steps);
    // XState creates invoked children inside `createActor`: they find their instance meanwhile.
    const actor = this.deps.constructing(this, () =>
      createActor(this.deps.machine, {
        ...(restore
          ? { snapshot: from.snapshot as unknown as Snapshot<unknown> }
          : { input: from.input }),
        clock: this.clock,
        inspect: (event) => this.events.inspected(event),
      }),
    );
    this.actor = actor;
    this.deps.register(actor.system, this);
    actor.subscribe({
      next: (snapshot) => this.afterMacrostep(snapshot),
      error: () => this.afterMacrostep(actor.getSnapshot()),
    });
    this.events.restoring = restore;
    if (restore) actor.start();
    else this.events.from({ source: 'start' }, () => actor.start());
    if (restore) {
      this.steps.restored(this.snapshot().children as Record<string, unknown>);
      rescheduleTimers(actor, this.meta.timers, this.deps.clock.now(), this.paths);
      this.events.restoring = false;
      this.syncTimers();
    }
    this.saves.markDirty();
  }

  /** The machine's current snapshot. */
  snapshot(): AnyMachineSnapshot {
    return this.actor.getSnapshot() as AnyMachineSnapshot;
  }

  /**
   * Runs `work` with the instance held: it does not leave memory meanwhile (a save that lands
   * while the host still applies commands to it must not unload it).
   */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.holds += 1;
    try {
      return await work();
    } finally {
      this.holds -= 1;
      if (this.holds === 0) this.deps.unheld(this);
    }
  }

  /** Whether the instance can leave memory: nothing runs for it in this process. */
  idle(): boolean {
    if (this.holds > 0 || this.saves.pending) return false;
    if (this.meta.cancelled) return true; // its steps stop as it leaves memory
    if (this.steps.running > 0) return false;
    if (Object.values(this.meta.steps).some((marker) => !marker.inDoubt)) return false;
    if (this.ended()) return true;
    return !agentRunning(this.snapshot(), this.meta.links);
  }

  /** Whether the instance ended (done, error or cancelled): nothing more will happen to it. */
  ended(): boolean {
    return this.meta.cancelled !== undefined || this.snapshot().status !== 'active';
  }

  /** Resolves once every timer due by now fired and everything it led to is saved. */
  async settle(): Promise<void> {
    do {
      await this.clock.settled(this.deps.clock.now());
      await this.flushed();
    } while (this.saves.pending);
  }

  /** Resolves once nothing waits to be saved; rejects with why the instance was dropped. */
  async flushed(): Promise<void> {
    await this.saves.flushed();
    if (this.stoppedWith !== undefined) throw this.stoppedWith;
  }

  /** A durable step of the machine (see `InstanceSteps.run`). */
  runStep(
    name: string,
    step: StepDefinition,
    actorId: string,
    input: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    return this.steps.run(name, step, actorId, input, signal);
  }

  /** A linked child's snapshot changed (an agent paused for an approval or went on): saved. */
  childChanged(): void {
    this.saves.markDirty();
  }

  /** Records the child `actorId` as linked elsewhere (an agent's session, a child workflow). */
  link(actorId: string, link: InstanceLink): void {
    const known = this.meta.links[actorId];
    if (known?.id === link.id && known.kind === link.kind) return;
    this.meta.links[actorId] = link;
    this.saves.markDirty();
  }

  // ---------------------------------------------------------------- commands

  /** Applies a command taken from the inbox (throws its error: it is refused). */
  private execute(command: InstanceCommand, queuedId: string): void {
    applyCommand(
      {
        id: this.id,
        meta: this.meta,
        now: this.deps.clock.now(),
        snapshot: () => this.snapshot(),
        send: (event, origin) => this.events.from(origin, () => this.actor.send(event)),
        note: (type, origin) => this.events.add(type, origin),
        answer: (actorId, resolution) => this.steps.answer(actorId, resolution),
        macrostep: () => this.afterMacrostep(this.snapshot()),
      },
      command,
      queuedId,
    );
  }

  // ---------------------------------------------------------------- macrosteps

  /**
   * Linked agents and child workflows whose state the machine left before they ended: their
   * runs (instances) are cancelled (a call one waited on must not stay pending where approvals
   * are listed), once.
   */
  private leftLinks(children: Readonly<Record<string, unknown>>): void {
    if (this.events.restoring) return;
    for (const [actorId, link] of Object.entries(this.meta.links)) {
      if (link.ended || actorId in children) continue;
      this.meta.links[actorId] = { ...link, ended: true };
      this.deps.linkLeft(link, this.userId);
    }
  }

  /** A linked child ended (done or error): its link ends; an agent's usage rolls up. */
  private rollUp(actorId: string, output: unknown): void {
    const link = this.meta.links[actorId];
    if (!link) return;
    this.meta.links[actorId] = { ...link, ended: true };
    if (link.kind !== 'agent') return;
    const usage = usageOfAgentOutput(output);
    if (usage) this.record = { ...this.record, usage: addUsage(this.record.usage, usage) };
  }

  /** After a macrostep: its events and finished steps journaled, timers kept, a save asked. */
  private afterMacrostep(snapshot: AnyMachineSnapshot): void {
    const value = snapshot.value as WorkflowEventOutput['value'];
    const at = this.deps.clock.now();
    this.saves.journal.push(...this.events.entries(value, snapshot.status, at));
    for (const done of this.steps.takeFinished()) {
      this.saves.journal.push(done.entry);
      if (this.meta.steps[done.actorId]?.step === done.step) delete this.meta.steps[done.actorId];
    }
    const children = snapshot.children as Record<string, unknown>;
    for (const actorId of Object.keys(this.meta.steps)) {
      // A step whose state was left: abandoned (its signal aborted), never in doubt.
      if (!(actorId in children) && !this.steps.isRestarting(actorId))
        delete this.meta.steps[actorId];
    }
    if (!this.events.restoring) this.syncTimers();
    this.leftLinks(children);
    this.saves.markDirty();
  }

  private readonly paths: ActorPaths = {
    pathOf: (ref) => (ref === (this.actor as AnyActorRef) ? '' : ref.id),
    refOf: (path) =>
      path === ''
        ? (this.actor as AnyActorRef)
        : (this.snapshot().children as Record<string, AnyActorRef | undefined>)[path],
  };

  private syncTimers(): void {
    // A cancelled instance keeps no timer (they stop with it).
    if (this.meta.cancelled) {
      this.meta.timers = [];
      return;
    }
    this.meta.timers = timersNow(this.actor, this.meta.timers, this.deps.clock.now(), this.paths);
  }

  // ---------------------------------------------------------------- saves

  private async write(journal: JournalEntry[], dequeued: string[]): Promise<void> {
    const waiting =
      agentAwaitingApproval(this.snapshot(), this.meta.links) || this.steps.inDoubt_().length > 0;
    const now = this.deps.clock.now();
    const record = instanceRecord({
      actor: this.actor,
      meta: this.meta,
      record: this.record,
      now,
      waiting,
    });
    const stored = this.created ? this.record : undefined;
    this.record = await writeInstance(
      this.deps.store,
      stored,
      record,
      journal,
      dequeued,
      this.lease,
    );
    this.created = true;
  }

  // ---------------------------------------------------------------- leaving memory

  /** Stops the actor after its last save (its timers cleared: they are stored). */
  unload(): void {
    if (this.stopped) return;
    this.unloaded = true;
    this.clock.clearAll();
    this.stopping.abort(new Error(`workflow instance "${this.id}" unloaded`));
    this.actor.stop();
    this.deps.released(this);
    this.settleGone();
  }

  /** Drops the instance without saving (a save failed: lease lost, conflict, store down). */
  drop(error: unknown): void {
    if (this.stoppedWith !== undefined) return;
    this.stoppedWith = error instanceof Error ? error : new Error(String(error));
    this.clock.clearAll();
    this.stopping.abort(error);
    this.saves.rejectAll(error);
    this.inbox.rejectAll(error);
    try {
      this.actor.stop();
    } catch {
      // stopping what failed to start
    }
    this.deps.released(this);
    this.settleGone();
  }

  /** Why the instance was dropped (a failed save), if it was. */
  get failure(): Error | undefined {
    return this.stoppedWith;
  }

  /** Whether the instance was unloaded or dropped. */
  get stopped(): boolean {
    return this.unloaded || this.stoppedWith !== undefined;
  }
}
