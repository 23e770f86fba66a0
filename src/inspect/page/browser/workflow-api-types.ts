/**
 * What the page reads of the inspector's workflow endpoints (`workflow-reads.ts` writes them):
 * a page of instances, one instance with its machine's graph, path, steps and nested sessions.
 */
import type { PendingApproval } from './api-types.js';

/** A workflow instance in the list (`/api/workflows`). */
export interface WorkflowSummary {
  id: string;
  workflow: string;
  status: string;
  /** Its machine's state now (`review.waiting`). */
  state: string;
  awaitingApproval: boolean;
  nextTimerAt?: number | undefined;
  updatedAt: number;
}

/** `/api/workflows`: a page of instances. */
export interface WorkflowPage {
  workflows: WorkflowSummary[];
  nextCursor?: string | undefined;
}

/** An event a workflow instance took and the state it reached, with its time. */
export interface WorkflowHop {
  step: number;
  at: number;
  source: string;
  type: string;
  eventId?: string | undefined;
  state: string;
  status: string;
}

/** A durable step's outcome in the state that invoked it. */
export interface WorkflowStep {
  step: number;
  name: string;
  actorId: string;
  state: string;
  outcome: string;
  output?: unknown;
  error?: { name?: string; message: string; code?: string | undefined } | undefined;
  startedAt?: number | undefined;
  at: number;
  restarts?: number | undefined;
}

/** An agent session a workflow invoked, under the state that invoked it. */
export interface NestedSession {
  actorId: string;
  state: string;
  sessionId: string;
  status?: string | undefined;
  runState?: string | undefined;
  pendingApprovals: PendingApproval[];
}

/** `/api/workflows/:id`: one instance with its chart, path, steps and nested sessions. */
export interface WorkflowDetail {
  workflow: { id: string; workflow: string; status: string; version: number; updatedAt: number };
  state: string;
  context: unknown;
  /** The app's machine, to lay out in the page; `null` when the inspector does not host it. */
  graph: ChartGraph | null;
  path: WorkflowHop[];
  steps: WorkflowStep[];
  running: { actorId: string; state: string; name: string; startedAt: number; restarts: number }[];
  timers: { id: string; event: string; dueAt: number }[];
  sessions: NestedSession[];
  children: { actorId: string; state: string; workflowId: string }[];
}

/**
 * A machine's states and transitions as plain JSON, before layout: what the server sends of an
 * app's machine (`machineGraph` in `src/inspect/machine-graph.ts`, whose type this mirrors) and
 * what `scripts/chart-layouts.ts` reads of the session and run machines.
 */
export interface ChartGraph {
  /** Parents before their children, the machine itself (`path: ''`) first. */
  states: {
    path: string;
    key: string;
    type: string;
    initial?: string | undefined;
    /** Each invocation's id (the child's id in a snapshot) and the actor's name (`src`). */
    invokes: { id: string; src: string }[];
  }[];
  /** Event (`CANCEL`, `always`, `onDone(src)`, `after(3000)`), guard, target paths. */
  edges: { from: string; event: string; guard?: string | undefined; targets: string[] }[];
  /** The actors the machine declares. */
  actors: string[];
}
