import type { JournalEntry, SessionKey, SessionRecord } from '../persistence/session-store.js';
import type {
  WorkflowEventOutput,
  WorkflowStepOutput,
} from '../machines/schemas/workflow-journal.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
import { WorkflowNotFoundError } from '../errors/workflow-errors.js';
import { INSTANCE_PREFIX, instanceIdOf, instanceKey } from '../workflow-host/instance-key.js';
import { readInstanceSnapshot } from '../workflow-host/instance-record.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';
import { stateName } from '../runs/session-status.js';
import { storedRun } from '../runs/stored-run.js';
import type { RunNode } from '../runs/run-tree.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { listPosition } from '../persistence/entries/list-order.js';
import { pendingApprovals, type PendingApproval } from './inspector-reads.js';
import type { InspectorWorkflows } from './inspector-workflows.js';
import type { ListQuery } from './list-query.js';
import { machineGraph, type MachineGraph } from './machine-graph.js';
import { workflowPath } from '../workflows/workflow-path.js';

/** A workflow instance as the list shows it: its record, its state now. */
export interface ListedWorkflow {
  id: string;
  workflow: string;
  userId: string | undefined;
  status: SessionRecord['status'];
  /** The machine's state (`review.waiting`, parallel regions joined by `,`). */
  state: string;
  awaitingApproval: boolean;
  /** The earliest durable timer's due time (epoch ms). */
  nextTimerAt: number | undefined;
  createdAt: number;
  updatedAt: number;
  usage: SessionRecord['usage'];
}

/** The state a stored machine snapshot is in, as a dotted path (`''` when it has none). */
function stateOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    return stateName(value as Parameters<typeof stateName>[0]);
  }
  return '';
}

function listed(record: SessionRecord): ListedWorkflow {
  const { machine } = readInstanceSnapshot(record.sessionId, record.snapshot);
  return {
    id: instanceIdOf(record.sessionId),
    workflow: record.workflow ?? '',
    userId: record.userId,
    status: record.status,
    state: stateOf(machine['value']),
    awaitingApproval: record.awaitingApproval === true,
    nextTimerAt: record.approvalDeadline,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    usage: record.usage,
  };
}

/**
 * A page of one user's workflow instances (`list({ kind: 'workflow' })`), in the store's list
 * order (those whose agent waits for a decision first), each with its state now.
 */
export async function listWorkflows(
  runtime: SessionRuntime,
  userId: string | undefined,
  query: Pick<ListQuery, 'status' | 'sort' | 'cursor' | 'limit'>,
): Promise<{ workflows: ListedWorkflow[]; nextCursor: string | undefined }> {
  const page = await runtime.store.list({
    kind: 'workflow',
    userId,
    status: query.status,
    order: query.sort,
    cursor: query.cursor,
    limit: query.limit,
  });
  // (a store of the contract lists instances only; one written before `kind` lists sessions too)
  const instances = page.sessions.filter((info) => info.workflow !== undefined);
  const workflows = await Promise.all(
    instances.map(async (info) =>
      listed(await runtime.store.load({ sessionId: info.sessionId, userId: info.userId })),
    ),
  );
  const last = page.sessions[page.sessions.length - 1];
  return {
    workflows,
    nextCursor: page.nextCursor === undefined || !last ? undefined : listPosition(query.sort, last),
  };
}

/** One event the instance took, with the state it reached: a stop of its path. */
export interface WorkflowHop {
  step: number;
  /** When it was applied (epoch ms). */
  at: number;
  source: WorkflowEventOutput['source'];
  type: string;
  eventId?: string | undefined;
  /** The state it reached. */
  state: string;
  status: WorkflowEventOutput['status'];
}

/** A durable step's outcome, in the state that invoked it. */
export interface WorkflowStep {
  step: number;
  name: string;
  actorId: string;
  /** The state whose invocation ran it (`''` when the chart does not say). */
  state: string;
  outcome: WorkflowStepOutput['outcome'];
  output?: unknown;
  error?: WorkflowStepOutput['error'];
  startedAt?: number | undefined;
  at: number;
  restarts?: number | undefined;
}

/** An agent session the instance invoked, under the state that invoked it. */
export interface NestedSession {
  actorId: string;
  state: string;
  sessionId: string;
  /** Absent when the linked session is gone. */
  status?: string | undefined;
  runState?: string | undefined;
  pendingApprovals: PendingApproval[];
}

/** A hosted machine the instance invoked (a child workflow), under the state that invoked it. */
export interface NestedWorkflow {
  actorId: string;
  state: string;
  workflowId: string;
}

/**
 * One workflow instance as the page shows it: its record and state, the app's chart (when the
 * inspector hosts its workflow), the path it took with times (journal `event` entries), its
 * durable steps with their outcomes and those in flight, its durable timers, and the agent
 * sessions and child workflows it invoked, each under the state that invoked it.
 */
export async function workflowDetail(
  runtime: SessionRuntime,
  workflows: InspectorWorkflows,
  id: string,
  userId: string | undefined,
) {
  const { key, record } = await loadInstance(runtime, id, userId);
  const { machine, host } = readInstanceSnapshot(key.sessionId, record.snapshot);
  const hosted = workflows.find(record.workflow);
  const graph: MachineGraph | null = hosted ? machineGraph(hosted.machine) : null;
  const invokedIn = (actorId: string) =>
    graph?.states.find((s) => s.invokes.some((i) => i.id === actorId))?.path ?? '';
  const journal: JournalEntry[] = await readCheckedJournal(runtime.store, key, host.runId);
  const path: WorkflowHop[] = workflowPath(journal).map(({ value, ...hop }) => ({
    ...hop,
    state: stateOf(value),
  }));
  const steps: WorkflowStep[] = journal
    .filter((e) => e.kind === 'step')
    .map((e) => {
      const o = e.output as WorkflowStepOutput;
      return {
        step: e.step,
        name: o.name,
        actorId: o.actorId,
        state: invokedIn(o.actorId),
        outcome: o.outcome,
        ...(o.output === undefined ? {} : { output: o.output }),
        ...(o.error === undefined ? {} : { error: o.error }),
        ...(e.startedAt === undefined ? {} : { startedAt: e.startedAt }),
        at: e.at,
        ...(e.restarts === undefined ? {} : { restarts: e.restarts }),
      };
    });
  const sessions: NestedSession[] = [];
  const children: NestedWorkflow[] = [];
  for (const [actorId, link] of Object.entries(host.links)) {
    const state = invokedIn(actorId);
    if (link.kind === 'workflow') {
      children.push({ actorId, state, workflowId: link.id });
      continue;
    }
    sessions.push({ actorId, state, ...(await linkedSession(runtime, link.id, userId)) });
  }
  const { snapshot: _snapshot, ...info } = record;
  return {
    workflow: {
      ...info,
      id,
      workflow: record.workflow ?? '',
    },
    state: stateOf(machine['value']),
    machineStatus: machine['status'],
    context: machine['context'],
    ...(machine['output'] === undefined ? {} : { output: machine['output'] }),
    ...(machine['error'] === undefined ? {} : { error: machine['error'] }),
    ...(host.cancelled ? { cancelled: host.cancelled } : {}),
    /** The app's chart: `null` when this inspector does not host the instance's workflow. */
    graph,
    path,
    steps,
    running: Object.entries(host.steps).map(([actorId, s]) => ({
      actorId,
      state: invokedIn(actorId),
      name: s.name,
      startedAt: s.startedAt,
      restarts: s.restarts ?? 0,
    })),
    timers: host.timers.map((t) => ({ id: t.id, event: t.event.type, dueAt: t.dueAt })),
    sessions,
    children,
  };
}

/**
 * Instance `id` of `userId` as stored: a record of no workflow (a session that happens to have
 * such an id) or none at all is `WorkflowNotFoundError` (404), as another user's is.
 */
export async function loadInstance(
  runtime: SessionRuntime,
  id: string,
  userId: string | undefined,
): Promise<{ key: SessionKey; record: SessionRecord }> {
  const key = instanceKey(id, userId);
  const record = await runtime.store.load(key).catch((error: unknown) => {
    if (error instanceof SessionNotFoundError) throw new WorkflowNotFoundError(id);
    throw error;
  });
  if (record.workflow === undefined) throw new WorkflowNotFoundError(id);
  return { key, record };
}

/** The workflow instance whose agent a session is (its linked session), as its host says. */
export interface SessionLink {
  /** The instance's id, its workflow and the invoked actor the session runs for. */
  id: string;
  workflow: string;
  actorId: string;
}

/**
 * Whether session `key` is the linked session of an agent a workflow instance invoked: its id
 * names an instance and an actor (`workflow:<id>/<actor id>`), and that instance's stored links
 * say so (the id alone proves nothing: a session may be named anything).
 */
export async function sessionLink(
  runtime: SessionRuntime,
  key: SessionKey,
): Promise<SessionLink | undefined> {
  const at = key.sessionId.lastIndexOf('/');
  if (!key.sessionId.startsWith(INSTANCE_PREFIX) || at < 0) return undefined;
  const id = key.sessionId.slice(INSTANCE_PREFIX.length, at);
  const actorId = key.sessionId.slice(at + 1);
  if (!id || !actorId) return undefined;
  const found = await loadInstance(runtime, id, key.userId).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  });
  if (!found) return undefined;
  const link = readInstanceSnapshot(found.key.sessionId, found.record.snapshot).host.links[actorId];
  if (link?.kind !== 'agent' || link.id !== key.sessionId) return undefined;
  return { id, workflow: found.record.workflow ?? '', actorId };
}

/** A linked agent session's state and the calls its run waits on (nothing when it is gone). */
async function linkedSession(
  runtime: SessionRuntime,
  sessionId: string,
  userId: string | undefined,
): Promise<Omit<NestedSession, 'actorId' | 'state'>> {
  const key = { sessionId, userId };
  const record = await runtime.store.load(key).catch((error: unknown) => {
    if (error instanceof SessionNotFoundError) return undefined;
    throw error;
  });
  if (!record) return { sessionId, pendingApprovals: [] };
  const view = await runtime.getSession(key);
  return {
    sessionId,
    status: view.status,
    runState: view.runStatus?.status,
    pendingApprovals: pendingApprovals(storedRun<RunNode>(record.snapshot)),
  };
}
