import type { JournalEntry, SessionKey, SessionRecord } from '../persistence/session-store.js';
import type {
  WorkflowEventOutput,
  WorkflowStepOutput,
} from '../machines/schemas/workflow-journal.js';
import { SessionNotFoundError } from '../errors/session-errors.js';
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

/** The session id an instance of a hosted machine is stored under. */
const PREFIX = 'workflow:';

/** The stored key of workflow instance `id` of `userId`. */
export function workflowKey(id: string, userId: string | undefined): SessionKey {
  return { sessionId: `${PREFIX}${id}`, userId };
}

/** What the inspector reads of an instance's stored snapshot (`{ format, machine, host }`). */
interface StoredWorkflow {
  machine?: {
    value?: unknown;
    status?: string;
    context?: unknown;
    output?: unknown;
    error?: unknown;
    children?: Record<string, unknown>;
  };
  host?: {
    runId?: string;
    steps?: Record<string, { step: number; name: string; startedAt: number; restarts?: number }>;
    timers?: {
      id: string;
      source: string;
      target: string;
      event: { type: string };
      dueAt: number;
    }[];
    cancelled?: { at: number; reason?: string };
    links?: Record<string, { kind: 'agent' | 'workflow'; name: string; id: string }>;
  };
}

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
  const stored = record.snapshot as StoredWorkflow | null;
  return {
    id: record.sessionId.slice(PREFIX.length),
    workflow: record.workflow ?? '',
    userId: record.userId,
    status: record.status,
    state: stateOf(stored?.machine?.value),
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
  const workflows = await Promise.all(
    page.sessions.map(async (info) =>
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
  const key = workflowKey(id, userId);
  const record = await runtime.store.load(key);
  const stored = (record.snapshot ?? {}) as StoredWorkflow;
  const host = stored.host ?? {};
  const machine = stored.machine ?? {};
  const hosted = workflows.find(record.workflow);
  const graph: MachineGraph | null = hosted ? machineGraph(hosted.machine) : null;
  const invokedIn = (actorId: string) =>
    graph?.states.find((s) => s.invokes.some((i) => i.id === actorId))?.path ?? '';
  const journal: JournalEntry[] =
    host.runId === undefined ? [] : await readCheckedJournal(runtime.store, key, host.runId);
  const path: WorkflowHop[] = journal
    .filter((e) => e.kind === 'event')
    .map((e) => {
      const o = e.output as WorkflowEventOutput;
      return {
        step: e.step,
        at: e.at,
        source: o.source,
        type: o.type,
        ...(o.eventId === undefined ? {} : { eventId: o.eventId }),
        state: stateOf(o.value),
        status: o.status,
      };
    });
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
  for (const [actorId, link] of Object.entries(host.links ?? {})) {
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
    state: stateOf(machine.value),
    machineStatus: machine.status,
    context: machine.context,
    ...(machine.output === undefined ? {} : { output: machine.output }),
    ...(machine.error === undefined ? {} : { error: machine.error }),
    ...(host.cancelled ? { cancelled: host.cancelled } : {}),
    /** The app's chart: `null` when this inspector does not host the instance's workflow. */
    graph,
    path,
    steps,
    running: Object.entries(host.steps ?? {}).map(([actorId, s]) => ({
      actorId,
      state: invokedIn(actorId),
      name: s.name,
      startedAt: s.startedAt,
      restarts: s.restarts ?? 0,
    })),
    timers: (host.timers ?? []).map((t) => ({ id: t.id, event: t.event.type, dueAt: t.dueAt })),
    sessions,
    children,
  };
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
