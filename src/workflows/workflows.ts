import type { AnyStateMachine, EventFromLogic, InputFrom } from 'xstate';
import { systemClock } from '../core/clock.js';
import { newId } from '../core/new-id.js';
import type {
  JournalEntry,
  ListOrder,
  SessionKey,
  SessionRecord,
  SessionStatus,
} from '../persistence/session-store.js';
import { UnknownCallError } from '../errors/run-errors.js';
import { defaultStore } from '../sessions/default-store.js';
import { WorkflowHost } from '../workflow-host/workflow-host.js';
import { durableMachine } from '../workflow-host/durable-actors.js';
import { checkDeclaredActors, definitionShape } from '../workflow-host/machine-definition.js';
import { checkEvent, type StepResolution } from '../workflow-host/instance-command.js';
import { instanceKey } from '../workflow-host/instance-key.js';
import { readInstanceSnapshot } from '../workflow-host/instance-record.js';
import type { AgentActorLogic } from '../agent/agent-actor-types.js';
import { isPlainJson } from '../validation/plain-json.js';
import { checkWorkflowsOptions, type WorkflowsOptions } from './workflow-options.js';
import {
  workflowInfo,
  workflowSummary,
  type WorkflowInfo,
  type WorkflowSummary,
} from './workflow-info.js';
import { WorkflowScheduler, type WorkflowSchedulerOptions } from './workflow-scheduler.js';
import { waitingCalls, type WorkflowApproval } from './workflow-approvals.js';
import { recoverInstances, type Recovered } from './workflow-recovery.js';

const DEFAULT_LEASE_TTL_MS = 30_000;
const DEFAULT_POLL_MS = 1_000;

/** Who an instance belongs to: its owner (the same hard partition as sessions). */
export interface InstanceScope {
  userId?: string | undefined;
}

/**
 * The instances of one app machine, hosted like sessions: `start` one, `send` it events from
 * any process, `get`, `list`, `cancel`; decide what its agents wait for; read its journal.
 * Every macrostep that changed an instance is saved with what happened in one atomic batch;
 * its durable steps run once; its delays are durable timers; one process drives it at a time.
 */
export class Workflows<TMachine extends AnyStateMachine = AnyStateMachine> {
  /** The workflow's name (stored on each instance). */
  readonly name: string;
  readonly host: WorkflowHost;

  constructor(
    /** The app's machine, as given. */
    readonly machine: TMachine,
    private readonly options: WorkflowsOptions,
  ) {
    this.name = options.name ?? machine.id;
    const steps = options.steps ?? {};
    const agents = options.agents ?? {};
    const children = options.children ?? {};
    const declared = new Set([
      ...Object.keys(steps),
      ...Object.keys(agents),
      ...Object.keys(children),
    ]);
    checkDeclaredActors(this.name, machine, declared);
    const store = options.store ?? defaultStore();
    const agentLogic: Record<string, AgentActorLogic> = {};
    for (const [name, agent] of Object.entries(agents)) agentLogic[name] = agent.asActor({ store });
    // The durable actors find their instance through the host made just below.
    const ref: { host?: WorkflowHost } = {};
    const childHosts = Object.fromEntries(
      Object.entries(children).map(([name, child]) => [name, child.host]),
    );
    const provided = durableMachine(
      machine,
      { steps, agents: agentLogic, children: childHosts },
      (system) => ref.host?.instanceOf(system),
    );
    const host = new WorkflowHost({
      name: this.name,
      machine: provided,
      shape: definitionShape(machine),
      version: options.version ?? 1,
      migrations: options.migrations ?? {},
      store,
      clock: options.clock ?? systemClock,
      owner: options.owner ?? `workflows-${newId()}`,
      leaseTtlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_MS,
      cancelLinked: (link, userId) =>
        (link.kind === 'agent'
          ? agents[link.name]?.cancel(link.id, { userId, store, by: `workflow ${this.name}` })
          : children[link.name]?.cancel(link.id, {
              userId,
              reason: 'its parent left the state that invoked it',
            })) ?? Promise.resolve(),
    });
    ref.host = host;
    this.host = host;
    for (const child of Object.values(children)) child.host.adoptParent(host);
  }

  /**
   * Starts instance `id` with `input` (plain JSON) for `userId`; resolves once its first
   * macrostep is saved. `WorkflowExistsError` when the id is taken.
   */
  async start(
    id: string,
    options: InstanceScope & { input?: InputFrom<TMachine> } = {},
  ): Promise<WorkflowInfo> {
    const key = instanceKey(id, options.userId);
    if (options.input !== undefined && !isPlainJson(options.input)) {
      throw new TypeError(`workflows.start("${id}"): input must be plain JSON`);
    }
    const record = await this.host.start(id, key.userId, options.input);
    return workflowInfo(record);
  }

  /**
   * Sends `event` to instance `id`, from any process: applied exactly once (per `eventId`,
   * when given) and in one order, by the process that holds the instance; resolves once
   * applied and saved. An event its state does not take is `EventNotAcceptedError` (naming the
   * state and the events it takes), and nothing is stored.
   */
  async send(
    id: string,
    event: EventFromLogic<TMachine>,
    options: InstanceScope & { eventId?: string | undefined } = {},
  ): Promise<WorkflowInfo> {
    const key = instanceKey(id, options.userId);
    const command = checkEvent(id, event);
    if (options.eventId !== undefined) {
      if (typeof options.eventId !== 'string' || options.eventId.length === 0) {
        throw new TypeError(`workflows.send("${id}"): eventId must be a non-empty string`);
      }
    }
    await this.host.submit(key, id, { ...command, eventId: options.eventId });
    return this.get(id, options);
  }

  /** Instance `id` as stored (or as live in this process, once saved). */
  async get(id: string, options: InstanceScope = {}): Promise<WorkflowInfo> {
    return workflowInfo(await this.record(id, options));
  }

  /** The record of instance `id`: a live one's once saved (its first save may be under way). */
  private async record(id: string, scope: InstanceScope): Promise<SessionRecord> {
    const key = instanceKey(id, scope.userId);
    const live = this.host.liveInstance(key)?.record;
    return live && live.version > 0 ? live : this.host.stored.read(key, id);
  }

  /** A page of this workflow's instances of one user, in the store's list order. */
  async list(
    query: InstanceScope & {
      status?: SessionStatus | undefined;
      limit?: number | undefined;
      cursor?: string | undefined;
      order?: ListOrder | undefined;
    } = {},
  ): Promise<{ workflows: WorkflowSummary[]; nextCursor: string | undefined }> {
    const page = await this.host.config.store.list({ ...query, kind: 'workflow' });
    return {
      workflows: page.sessions.filter((s) => s.workflow === this.name).map(workflowSummary),
      nextCursor: page.nextCursor,
    };
  }

  /** Cancels instance `id` from any process: its steps stop, its agents' runs are cancelled. */
  async cancel(
    id: string,
    options: InstanceScope & { reason?: string | undefined } = {},
  ): Promise<WorkflowInfo> {
    const key = instanceKey(id, options.userId);
    await this.host.submit(key, id, { kind: 'cancel', reason: options.reason });
    return this.get(id, options);
  }

  /** The calls the instance's linked agents wait for a decision on. */
  async approvals(id: string, options: InstanceScope = {}): Promise<WorkflowApproval[]> {
    return waitingCalls(await this.record(id, options));
  }

  /** Approves a call a linked agent of instance `id` waits for; resolves once applied. */
  async approve(
    id: string,
    callId: string,
    options: InstanceScope & { always?: boolean | undefined } = {},
  ): Promise<WorkflowInfo> {
    const key = await this.waitingCall(id, callId, options);
    await this.host.submit(key, id, {
      kind: 'decision',
      callId,
      approve: true,
      always: options.always,
    });
    return this.get(id, options);
  }

  /** Rejects a call a linked agent of instance `id` waits for; resolves once applied. */
  async reject(
    id: string,
    callId: string,
    options: InstanceScope & { message?: string | undefined; always?: boolean | undefined } = {},
  ): Promise<WorkflowInfo> {
    const key = await this.waitingCall(id, callId, options);
    await this.host.submit(key, id, {
      kind: 'decision',
      callId,
      approve: false,
      message: options.message,
      always: options.always,
    });
    return this.get(id, options);
  }

  /** The instance's key, once a linked agent waits on `callId` (else `UnknownCallError`: nothing stored). */
  private async waitingCall(id: string, callId: string, scope: InstanceScope): Promise<SessionKey> {
    const key = instanceKey(id, scope.userId);
    const waiting = await this.approvals(id, scope);
    if (!waiting.some((call) => call.callId === callId)) {
      throw new UnknownCallError(callId, { sessionId: key.sessionId });
    }
    return key;
  }

  /**
   * Answers for a step waiting in doubt (`onInterrupted: 'ask'`): run it again, take `output`
   * as its outcome, or fail it.
   */
  async resolveInDoubt(
    id: string,
    actorId: string,
    resolution: StepResolution,
    options: InstanceScope = {},
  ): Promise<WorkflowInfo> {
    const key = instanceKey(id, options.userId);
    await this.host.submit(key, id, { kind: 'resolve', actorId, resolution });
    return this.get(id, options);
  }

  /** The instance's journal: every event it took (with the state reached) and step outcome. */
  async journal(
    id: string,
    options: InstanceScope & { from?: number } = {},
  ): Promise<JournalEntry[]> {
    const key = instanceKey(id, options.userId);
    const record = await this.host.stored.read(key, id);
    const { host } = readInstanceSnapshot(key.sessionId, record.snapshot);
    return this.host.config.store.readRunJournal(key, host.runId, options.from ?? 0);
  }

  /**
   * Restores this workflow's active instances of one user that no process holds (their process
   * stopped: a crash, a deploy) and runs what waits in each: a step that was in flight follows
   * its in-doubt policy, commands in the inbox are applied, timers due fire. An instance another
   * process holds (its lease live) is left to it. Resolves with what became of each.
   */
  recover(options: InstanceScope & { limit?: number | undefined } = {}): Promise<Recovered[]> {
    return recoverInstances(this, options);
  }

  /**
   * Fires the durable timers of this workflow's instances when due, from the store's deadline
   * index (in this process or whichever runs a scheduler), each once.
   */
  startScheduler(options: WorkflowSchedulerOptions = {}): WorkflowScheduler {
    return new WorkflowScheduler(this.host, options, this);
  }

  /** Saves and unloads the instances live in this process. The store stays open. */
  close(): Promise<void> {
    return this.host.close();
  }
}

/**
 * Hosts `machine` (any XState v5 machine made with `setup()`) as durable workflows: each
 * instance is persisted like a session, its steps journaled, its delays durable timers.
 * Actors it invokes must be declared (`steps`, `agents`), else `UndeclaredActorError`.
 */
export function workflows<TMachine extends AnyStateMachine>(
  machine: TMachine,
  options: WorkflowsOptions = {},
): Workflows<TMachine> {
  checkWorkflowsOptions(options);
  return new Workflows(machine, options);
}
