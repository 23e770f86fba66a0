import {
  createActor,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type InspectionEvent,
  type Actor,
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
import type { QueuedMessage } from '../persistence/message-inbox.js';
import { serializeError } from '../errors/agentstate-error.js';
import {
  EventNotAcceptedError,
  StepInterruptedError,
  WorkflowCancelledError,
} from '../errors/workflow-errors.js';
import { UnknownCallError } from '../errors/run-errors.js';
import type {
  WorkflowEventOutput,
  WorkflowStepOutput,
} from '../machines/schemas/workflow-journal.js';
import { DurableClock } from './durable-clock.js';
import { acceptedEvents } from './machine-definition.js';
import {
  KEPT_EVENT_IDS,
  type HostMeta,
  type InstanceLink,
  type InstanceSnapshot,
} from './instance-record.js';
import {
  stepOnInterrupted,
  type StepDefinition,
  type StepReconcileOutcome,
} from './step-definition.js';
import { instanceCommand, type InstanceCommand, type StepResolution } from './instance-command.js';
import { usageOfAgentOutput, addUsage } from './linked-usage.js';

/** What an instance needs of its host. */
export interface InstanceDeps {
  store: SessionStore;
  clock: Clock;
  /** The machine with the host's durable actors provided. */
  machine: AnyStateMachine;
  /** Registers the instance as the one its actors' system belongs to. */
  register(system: unknown, instance: WorkflowInstance): void;
  /** Told of each save. */
  saved(instance: WorkflowInstance): void;
  /** Told when the instance ended, failed or was unloaded. */
  released(instance: WorkflowInstance): void;
}

type Source = WorkflowEventOutput['source'];

/** A step that finished, waiting for the macrostep that takes its outcome. */
interface Finished {
  actorId: string;
  step: number;
  entry: JournalEntry;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

type RootActor = Actor<AnyStateMachine>;

/** What the instance reads of a child's snapshot (a linked agent's phase and pending calls). */
interface ChildSnapshot {
  status: string;
  context?: { phase?: string; interruptions?: { callId: string }[] } | undefined;
}

/**
 * One hosted app machine's instance held in memory: its XState actor, what the host keeps
 * beside it (`HostMeta`), and the saves. After each macrostep that changed anything, the
 * instance is saved in one atomic batch with the journal of what happened (the events taken,
 * the steps finished) and the inbox entries it took, under its lease.
 */
export class WorkflowInstance {
  readonly key: SessionKey;
  record: SessionRecord;
  meta: HostMeta;
  actor!: RootActor;
  private readonly clock: DurableClock;
  private readonly pendingJournal: JournalEntry[] = [];
  private readonly pendingDequeued: string[] = [];
  /** Events the machine took since the last macrostep ended, numbered in the journal as taken. */
  private readonly pendingEvents: {
    type: string;
    source: Source;
    eventId?: string | undefined;
    step: number;
  }[] = [];
  private readonly finished: Finished[] = [];
  /** Steps in flight at the last save, started anew by the restore: (actor id -> marker). */
  private readonly restarting = new Map<string, HostMeta['steps'][string]>();
  /** Operators' answers for steps waiting in doubt (`ask`). */
  private readonly askWaiters = new Map<string, (resolution: StepResolution) => void>();
  private readonly saveWaiters: Waiter[] = [];
  private readonly commandWaiters = new Map<string, Waiter>();
  /** Inbox entries this instance took. */
  private readonly taken = new Set<string>();
  private source: { source: Source; eventId?: string | undefined } | undefined;
  private dirty = false;
  private saving: Promise<void> | undefined;
  private restoring = false;
  private created: boolean;
  private stoppedWith: Error | undefined;
  private unloaded = false;
  /** Aborted when the instance is dropped: its steps' signals. */
  readonly stopping = new AbortController();
  private settleGone!: () => void;
  /** Resolves once the instance left memory (unloaded: nothing ran for it here; or dropped). */
  readonly gone = new Promise<void>((resolve) => {
    this.settleGone = resolve;
  });
  /** Running steps (their functions executing now). */
  private running = 0;

  constructor(
    readonly id: string,
    record: SessionRecord,
    meta: HostMeta,
    private readonly deps: InstanceDeps,
    public lease: SessionLease | undefined,
    /** Whether the record exists in the store (else the first save creates it). */
    created: boolean,
  ) {
    this.key = { sessionId: record.sessionId, userId: record.userId };
    this.record = record;
    this.meta = meta;
    this.created = created;
    this.clock = new DurableClock(deps.clock, (fire) => this.from({ source: 'timer' }, fire));
  }

  get userId(): string | undefined {
    return this.key.userId;
  }

  /** Starts the actor: anew with `input`, or from the stored machine snapshot. */
  start(from: { input: unknown } | { snapshot: InstanceSnapshot['machine'] }): void {
    const restore = 'snapshot' in from;
    if (restore)
      for (const [actorId, marker] of Object.entries(this.meta.steps))
        this.restarting.set(actorId, marker);
    const actor = createActor(this.deps.machine, {
      ...(restore
        ? { snapshot: from.snapshot as unknown as Snapshot<unknown> }
        : { input: from.input }),
      clock: this.clock,
      inspect: (event) => this.inspected(event),
    });
    this.actor = actor;
    this.deps.register(actor.system, this);
    actor.subscribe({
      next: (snapshot) => this.afterMacrostep(snapshot),
      error: () => this.afterMacrostep(actor.getSnapshot()),
    });
    this.restoring = restore;
    this.source = restore ? undefined : { source: 'start' };
    try {
      actor.start();
    } finally {
      this.source = undefined;
    }
    if (restore) {
      this.rescheduleTimers();
      this.restoring = false;
      this.syncTimers();
    }
    this.markDirty();
  }

  /** The machine's current snapshot. */
  snapshot(): AnyMachineSnapshot {
    return this.actor.getSnapshot() as AnyMachineSnapshot;
  }

  /** Whether the instance can be unloaded: nothing runs in this process for it. */
  idle(): boolean {
    if (this.running > 0 || this.dirty) return false;
    if (Object.values(this.meta.steps).some((marker) => !marker.inDoubt)) return false;
    if (this.snapshot().status !== 'active' || this.meta.cancelled) return true;
    for (const [actorId, link] of Object.entries(this.meta.links)) {
      if (link.kind !== 'agent') continue;
      const child = this.childSnapshot(actorId);
      if (child?.context?.phase === 'running') return false;
    }
    return true;
  }

  /** Whether the instance ended (done, error or cancelled): nothing more will happen to it. */
  ended(): boolean {
    return this.meta.cancelled !== undefined || this.snapshot().status !== 'active';
  }

  /** Resolves once every timer due by now fired and everything it led to is saved. */
  async settle(): Promise<void> {
    for (;;) {
      await this.clock.settled(this.deps.clock.now());
      await this.flushed();
      if (!this.dirty && !this.saving) return;
    }
  }

  // ---------------------------------------------------------------- inbox

  /** Applies the inbox entries (oldest first) until it is empty; resolves once they are saved. */
  async drain(): Promise<void> {
    const inbox = this.deps.store;
    if (!inbox.queuedMessages) return;
    for (;;) {
      if (this.stoppedWith !== undefined) return;
      const queued = await inbox.queuedMessages(this.key, { limit: 50 });
      const fresh = queued.filter((m) => !this.taken.has(m.id));
      if (fresh.length === 0) return;
      for (const message of fresh) this.apply(message);
      await this.flushed();
    }
  }

  /** Waits for the inbox entry `id` to be applied and saved (or refused). */
  waitFor(id: string): Promise<void> {
    return new Promise<void>((resolve, reject) => this.commandWaiters.set(id, { resolve, reject }));
  }

  /** Whether this instance took the inbox entry `id` (applied or refused it). */
  took(id: string): boolean {
    return this.taken.has(id);
  }

  /** Stops waiting for the inbox entry `id` (it was not in the inbox this instance read). */
  forget(id: string): void {
    this.commandWaiters.delete(id);
  }

  private settleCommand(id: string, error?: unknown): void {
    const waiter = this.commandWaiters.get(id);
    if (!waiter) return;
    this.commandWaiters.delete(id);
    if (error === undefined) this.saveWaiters.push(waiter);
    else waiter.reject(error);
  }

  private apply(message: QueuedMessage): void {
    this.taken.add(message.id);
    this.pendingDequeued.push(message.id);
    this.markDirty();
    let command: InstanceCommand;
    try {
      command = instanceCommand(this.id, message);
    } catch (error) {
      this.settleCommand(message.id, error);
      return;
    }
    try {
      this.execute(command, message.id);
      this.settleCommand(message.id);
    } catch (error) {
      this.settleCommand(message.id, error);
    }
  }

  private execute(command: InstanceCommand, queuedId: string): void {
    if (this.meta.cancelled) throw new WorkflowCancelledError(this.id);
    switch (command.kind) {
      case 'event': {
        const eventId = command.eventId ?? queuedId;
        if (this.meta.events.includes(eventId)) return; // applied before: once
        const snapshot = this.snapshot();
        if (snapshot.status !== 'active' || !snapshot.can(command.event)) {
          throw new EventNotAcceptedError(
            this.id,
            command.event.type,
            snapshot.value,
            snapshot.status === 'active' ? acceptedEvents(snapshot) : [],
          );
        }
        this.meta.events = [...this.meta.events, eventId].slice(-KEPT_EVENT_IDS);
        this.from({ source: 'send', eventId }, () => this.actor.send(command.event));
        return;
      }
      case 'cancel': {
        this.meta.cancelled = {
          at: this.deps.clock.now(),
          ...(command.reason === undefined ? {} : { reason: command.reason }),
        };
        for (const [actorId, link] of Object.entries(this.meta.links)) {
          if (link.kind === 'agent') this.childRef(actorId)?.send({ type: 'agent.cancel' });
        }
        this.pendingEvents.push({
          type: 'workflow.cancel',
          source: 'cancel',
          step: ++this.meta.seq,
        });
        this.afterMacrostep(this.snapshot());
        return;
      }
      case 'decision': {
        const target = this.agentWaitingFor(command.callId);
        if (!target) throw new UnknownCallError(command.callId, { sessionId: this.id });
        target.send(
          command.approve
            ? {
                type: 'agent.approve',
                callId: command.callId,
                ...(command.always ? { always: true } : {}),
              }
            : {
                type: 'agent.reject',
                callId: command.callId,
                ...(command.message === undefined ? {} : { message: command.message }),
                ...(command.always ? { always: true } : {}),
              },
        );
        this.afterMacrostep(this.snapshot());
        return;
      }
      case 'resolve': {
        const answer = this.askWaiters.get(command.actorId);
        if (!answer) throw new UnknownCallError(command.actorId, { sessionId: this.id });
        this.askWaiters.delete(command.actorId);
        answer(command.resolution);
        return;
      }
    }
  }

  /** The linked agent actor waiting for a decision on `callId`. */
  private agentWaitingFor(callId: string): AnyActorRef | undefined {
    for (const [actorId, link] of Object.entries(this.meta.links)) {
      if (link.kind !== 'agent') continue;
      const context = this.childSnapshot(actorId)?.context;
      if (context?.interruptions?.some((i) => i.callId === callId)) {
        return this.childRef(actorId);
      }
    }
    return undefined;
  }

  private childRef(actorId: string): AnyActorRef | undefined {
    return (this.snapshot().children as Record<string, AnyActorRef | undefined>)[actorId];
  }

  /** A child's snapshot (an agent's context: phase, interruptions). */
  childSnapshot(actorId: string): ChildSnapshot | undefined {
    return this.childRef(actorId)?.getSnapshot() as ChildSnapshot | undefined;
  }

  // ---------------------------------------------------------------- steps

  /**
   * Runs a durable step for the invoked actor `actorId`: its start is saved before its function
   * runs; its outcome is journaled in the save of the macrostep that takes it. A run in flight
   * at a crash is in doubt: `reconcile`, then the step's `onInterrupted` decide.
   */
  async runStep(
    name: string,
    step: StepDefinition,
    actorId: string,
    input: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const restarted = this.restarting.get(actorId);
    this.restarting.delete(actorId);
    let marker: HostMeta['steps'][string];
    if (restarted && restarted.name === name) {
      marker = { ...restarted, restarts: (restarted.restarts ?? 0) + 1 };
      delete marker.inDoubt;
      this.meta.steps[actorId] = marker;
      const replayed = await this.deps.store.readJournal(this.key, this.meta.runId, marker.step);
      if (replayed?.kind === 'step') return this.replay(actorId, marker.step, replayed);
    } else {
      marker = { step: ++this.meta.seq, name, startedAt: this.deps.clock.now() };
      this.meta.steps[actorId] = marker;
      this.markDirty();
      await this.saved();
    }
    const key = `${this.id}:${marker.step}`;
    const both = AbortSignal.any([signal, this.stopping.signal]);
    const base = { input, key, signal: both };
    if (restarted) {
      const decided = await this.inDoubt(name, step, actorId, marker, base);
      if (decided) return this.finish(actorId, marker, name, decided);
    }
    this.running += 1;
    try {
      const output: unknown = await step.run({ ...base, restarts: marker.restarts ?? 0 });
      return this.finish(actorId, marker, name, { output });
    } catch (error) {
      if (both.aborted) throw error;
      return this.finish(actorId, marker, name, { error });
    } finally {
      this.running -= 1;
    }
  }

  /** What a step in doubt leads to: an outcome without running it, or `undefined` (run it). */
  private async inDoubt(
    name: string,
    step: StepDefinition,
    actorId: string,
    marker: HostMeta['steps'][string],
    base: { input: unknown; key: string; signal: AbortSignal },
  ): Promise<{ output: unknown } | { error: unknown } | undefined> {
    if (step.reconcile) {
      let found: StepReconcileOutcome<unknown> | undefined;
      try {
        found = await step.reconcile(base);
      } catch {
        found = 'unknown';
      }
      if (found === 'retry') return undefined;
      if (typeof found === 'object' && found !== null && 'output' in found)
        return { output: found.output };
    }
    switch (stepOnInterrupted(step)) {
      case 'retry':
        return undefined;
      case 'fail':
        return { error: new StepInterruptedError(this.id, name, base.key) };
      case 'ask': {
        this.meta.steps[actorId] = { ...marker, inDoubt: true };
        this.markDirty();
        const resolution = await new Promise<StepResolution>((resolve) =>
          this.askWaiters.set(actorId, resolve),
        );
        this.meta.steps[actorId] = marker;
        if (resolution.action === 'retry') return undefined;
        if (resolution.action === 'result') return { output: resolution.output };
        return { error: new StepInterruptedError(this.id, name, base.key) };
      }
    }
  }

  /** Keeps a step's outcome for the macrostep that takes it; returns (or throws) it. */
  private finish(
    actorId: string,
    marker: HostMeta['steps'][string],
    name: string,
    outcome: { output: unknown } | { error: unknown },
  ): unknown {
    const output: WorkflowStepOutput =
      'error' in outcome
        ? {
            name,
            actorId,
            outcome: 'error',
            error: serializeError(outcome.error, 'TOOL_STEP_FAILED'),
          }
        : {
            name,
            actorId,
            outcome: 'done',
            ...(outcome.output === undefined ? {} : { output: outcome.output }),
          };
    const entry: JournalEntry = {
      runId: this.meta.runId,
      step: marker.step,
      kind: 'step',
      output,
      at: this.deps.clock.now(),
      startedAt: marker.startedAt,
      ...(marker.restarts ? { restarts: marker.restarts } : {}),
    };
    this.finished.push({ actorId, step: marker.step, entry });
    if ('error' in outcome) throw outcome.error;
    return outcome.output;
  }

  /** A step whose outcome the journal holds: it is not run again. */
  private replay(actorId: string, step: number, entry: JournalEntry): unknown {
    const output = entry.output as WorkflowStepOutput;
    if (this.meta.steps[actorId]?.step === step) delete this.meta.steps[actorId];
    if (output.outcome === 'error')
      throw Object.assign(new Error(output.error?.message), output.error);
    return output.output;
  }

  /** The answer of an operator for a step waiting in doubt. */
  inDoubtSteps(): { actorId: string; name: string; step: number }[] {
    return Object.entries(this.meta.steps)
      .filter(([, marker]) => marker.inDoubt)
      .map(([actorId, marker]) => ({ actorId, name: marker.name, step: marker.step }));
  }

  // ---------------------------------------------------------------- links

  /** Records the child `actorId` as linked elsewhere (an agent's session, a child workflow). */
  link(actorId: string, link: InstanceLink): void {
    const known = this.meta.links[actorId];
    if (known?.id === link.id && known.kind === link.kind) return;
    this.meta.links[actorId] = link;
    this.markDirty();
  }

  // ---------------------------------------------------------------- macrosteps

  /** Runs `fn` with the events it causes marked as coming from `source`. */
  private from(source: { source: Source; eventId?: string | undefined }, fn: () => void): void {
    const before = this.source;
    this.source = source;
    try {
      fn();
    } finally {
      this.source = before;
    }
  }

  private inspected(event: InspectionEvent): void {
    if (event.type !== '@xstate.event') return;
    if (event.actorRef.sessionId !== event.rootId) return;
    const type = event.event.type;
    if (type === 'xstate.init' && this.restoring) return;
    const source: Source =
      this.source?.source ??
      (type.startsWith('xstate.done.actor.') || type.startsWith('xstate.error.actor.')
        ? this.linkOfEvent(type)
        : type === 'xstate.init'
          ? 'start'
          : 'step');
    this.pendingEvents.push({ type, source, eventId: this.source?.eventId, step: ++this.meta.seq });
    if (type.startsWith('xstate.done.actor.'))
      this.rollUp(type, event.event as { output?: unknown });
  }

  private linkOfEvent(type: string): Source {
    const actorId = type.replace(/^xstate\.(done|error)\.actor\./, '');
    return this.meta.links[actorId]?.kind === 'workflow' ? 'child' : 'step';
  }

  /** Adds a linked agent's usage to the instance's. */
  private rollUp(type: string, event: { output?: unknown }): void {
    const actorId = type.slice('xstate.done.actor.'.length);
    if (this.meta.links[actorId]?.kind !== 'agent') return;
    const usage = usageOfAgentOutput(event.output);
    if (usage) this.record = { ...this.record, usage: addUsage(this.record.usage, usage) };
  }

  private afterMacrostep(snapshot: AnyMachineSnapshot): void {
    const value = snapshot.value as unknown;
    const status = snapshot.status;
    for (const event of this.pendingEvents.splice(0)) {
      const output: WorkflowEventOutput = {
        source: event.source,
        type: event.type,
        ...(event.eventId === undefined ? {} : { eventId: event.eventId }),
        value: value,
        status,
      };
      this.pendingJournal.push({
        runId: this.meta.runId,
        step: event.step,
        kind: 'event',
        output,
        at: this.deps.clock.now(),
      });
    }
    for (const done of this.finished.splice(0)) {
      this.pendingJournal.push(done.entry);
      if (this.meta.steps[done.actorId]?.step === done.step) delete this.meta.steps[done.actorId];
    }
    const children = snapshot.children as Record<string, unknown>;
    for (const actorId of Object.keys(this.meta.steps)) {
      // A step whose state was left: abandoned (its signal aborted), never in doubt.
      if (!(actorId in children) && !this.restarting.has(actorId)) delete this.meta.steps[actorId];
    }
    if (!this.restoring) this.syncTimers();
    this.markDirty();
  }

  // ---------------------------------------------------------------- timers

  private pathOf(ref: AnyActorRef): string {
    return ref === (this.actor as AnyActorRef) ? '' : ref.id;
  }

  private refOf(path: string): AnyActorRef | undefined {
    return path === '' ? (this.actor as AnyActorRef) : this.childRef(path);
  }

  /** The delayed events XState holds now, with due times (kept for those known before). */
  private syncTimers(): void {
    const scheduled = (
      this.actor.system as unknown as {
        getSnapshot(): {
          _scheduledEvents: Record<
            string,
            {
              source: AnyActorRef;
              target: AnyActorRef;
              event: { type: string };
              delay: number;
              id: string;
            }
          >;
        };
      }
    ).getSnapshot()._scheduledEvents;
    const known = new Map(this.meta.timers.map((t) => [`${t.source}|${t.id}`, t]));
    const now = this.deps.clock.now();
    this.meta.timers = Object.values(scheduled).map((s) => {
      const source = this.pathOf(s.source);
      const previous = known.get(`${source}|${s.id}`);
      return {
        id: s.id,
        source,
        target: this.pathOf(s.target),
        event: s.event,
        dueAt: previous?.dueAt ?? now + s.delay,
      };
    });
  }

  /** Schedules the stored timers again, each for what is left of its delay. */
  private rescheduleTimers(): void {
    const scheduler = this.actor.system.scheduler;
    const now = this.deps.clock.now();
    for (const timer of this.meta.timers) {
      const source = this.refOf(timer.source);
      const target = this.refOf(timer.target);
      if (!source || !target) continue; // its actor is gone: the delayed event is moot
      scheduler.schedule(source, target, timer.event, Math.max(0, timer.dueAt - now), timer.id);
    }
  }

  /** The earliest timer's due time (the store's deadline index holds it). */
  nextTimerAt(): number | undefined {
    let next: number | undefined;
    for (const timer of this.meta.timers)
      if (next === undefined || timer.dueAt < next) next = timer.dueAt;
    return next;
  }

  // ---------------------------------------------------------------- saves

  private markDirty(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (!this.saving) this.saving = Promise.resolve().then(() => this.saveLoop());
  }

  /** Resolves after the next save (of everything changed so far) lands. */
  private saved(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.saveWaiters.push({ resolve, reject }));
  }

  /** Resolves once nothing waits to be saved. */
  async flushed(): Promise<void> {
    while (this.saving) await this.saving;
    if (this.stoppedWith !== undefined) throw this.stoppedWith;
  }

  private async saveLoop(): Promise<void> {
    try {
      while (this.dirty && this.stoppedWith === undefined) {
        this.dirty = false;
        const waiters = this.saveWaiters.splice(0);
        try {
          await this.commit();
          this.deps.saved(this);
        } catch (error) {
          for (const waiter of waiters) waiter.reject(error);
          this.drop(error);
          return;
        }
        for (const waiter of waiters) waiter.resolve();
      }
    } finally {
      this.saving = undefined;
    }
  }

  private persistedMachine(): InstanceSnapshot['machine'] {
    const persisted = this.actor.getPersistedSnapshot() as Record<string, unknown>;
    const copy = JSON.parse(JSON.stringify(persisted)) as Record<string, unknown>;
    const error = (this.actor.getSnapshot() as { error?: unknown }).error;
    if (error !== undefined) copy.error = serializeError(error, 'TOOL_STEP_FAILED');
    return copy;
  }

  private statusNow(): SessionRecord['status'] {
    if (this.meta.cancelled) return 'failed';
    const status = this.snapshot().status;
    return status === 'done' ? 'completed' : status === 'error' ? 'failed' : 'active';
  }

  private awaitingApproval(): boolean {
    for (const [actorId, link] of Object.entries(this.meta.links)) {
      if (link.kind !== 'agent') continue;
      if (this.childSnapshot(actorId)?.context?.phase === 'awaitingApproval') return true;
    }
    return this.inDoubtSteps().length > 0;
  }

  private async commit(): Promise<void> {
    const journal = this.pendingJournal.splice(0);
    const dequeued = this.pendingDequeued.splice(0);
    const snapshot: InstanceSnapshot = {
      format: 1,
      machine: this.persistedMachine(),
      host: JSON.parse(JSON.stringify(this.meta)) as HostMeta,
    };
    const nextTimerAt = this.nextTimerAt();
    const record: SessionRecord = {
      ...this.record,
      status: this.statusNow(),
      updatedAt: this.deps.clock.now(),
      snapshot,
      approvalDeadline: this.ended() ? undefined : nextTimerAt,
      awaitingApproval: this.awaitingApproval() || undefined,
    };
    try {
      if (!this.created) {
        const { version: _version, ...fresh } = record;
        void _version;
        this.record = await this.deps.store.create(fresh);
        this.created = true;
        if (journal.length > 0 || dequeued.length > 0) {
          this.record = await this.deps.store.save({
            record: this.record,
            items: [],
            journal,
            dequeued,
            lease: this.lease,
          });
        }
        return;
      }
      this.record = await this.deps.store.save({
        record,
        items: [],
        journal,
        dequeued,
        lease: this.lease,
      });
    } catch (error) {
      // Not saved: what it held goes back, in order, for the caller to see the error.
      this.pendingJournal.unshift(...journal);
      this.pendingDequeued.unshift(...dequeued);
      throw error;
    }
  }

  // ---------------------------------------------------------------- stop

  /**
   * Stops the actor after its last save (its timers cleared: they are stored). The instance is
   * then gone from memory; its record holds everything.
   */
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
    for (const waiter of this.saveWaiters.splice(0)) waiter.reject(error);
    for (const waiter of this.commandWaiters.values()) waiter.reject(error);
    this.commandWaiters.clear();
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
