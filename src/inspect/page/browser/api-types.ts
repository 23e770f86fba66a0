/**
 * What the page reads of the inspector's JSON API (`start-inspector.ts` and
 * `inspector-reads.ts` write it): only the fields the page shows, as plain JSON.
 */

/** `/api/info`: who the page is for and what it can do. */
export interface InspectorInfo {
  userId: string | null;
  allUsers: boolean;
  recordOnly: boolean;
  agents: string[];
  /** The app's workflow hosts the inspector was given (their instances are listed apart). */
  workflows: string[];
  /** Whether the store keeps memory across sessions (`/api/memory` answers). */
  memory?: boolean;
  /** Whether the store keeps schedules (`/api/schedules` answers). */
  schedules?: boolean;
  /** Whether the inspector has a datasets folder (a session's run can be added to one). */
  datasets?: boolean;
}

/** A memory as `/api/memory` lists it. */
export interface MemoryItem {
  id: string;
  resource?: string;
  kind: 'fact' | 'message';
  role?: string;
  text: string;
  sessionId?: string;
  at: number;
}

/** `/api/memory`: a user's scopes with their working memory, and a page of their memories. */
export interface UserMemory {
  userId: string | null;
  resource?: string;
  scopes: {
    resource?: string;
    memories: number;
    workingMemory: { content: unknown; version: number; updatedAt: number } | null;
  }[];
  memories: MemoryItem[];
  nextCursor?: string;
}

/** One state of a machine's chart (`/api/machines`), its nested states in `states`. */
export interface ChartState {
  path: string;
  key: string;
  type: string;
  transitions: { event: string; targets: string[] }[];
  invokes: string[];
  states: ChartState[];
}

/** `/api/machines`: the two machines' charts. */
export interface MachineCharts {
  session: ChartState;
  run: ChartState;
}

/** Tokens and cost, of a session, a run or a model step. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number | undefined;
  turns?: number | undefined;
}

/** A typed error as the API shows it. */
export interface ErrorInfo {
  name: string;
  code: string;
  message: string;
}

/** What a session's run does (running, crashed, paused and why) or how it ended. */
export interface RunStatus {
  status: string;
  interruption?: string | undefined;
  error?: ErrorInfo | undefined;
  /** With interruption `in_doubt`: the calls cut off by a crash that wait for an operator. */
  callsInDoubt?: InDoubtCall[] | undefined;
}

/** A tool call in doubt after a crash, waiting for an operator (`onInterrupted: 'ask'`). */
export interface InDoubtCall {
  callId: string;
  toolName: string;
  arguments: unknown;
  agent: string;
  runId: string;
  agentPath?: string[] | undefined;
  reconcile?: string | undefined;
}

/** A session as listed (`/api/sessions`). */
export interface SessionSummary {
  sessionId: string;
  parentId?: string | undefined;
  status: string;
  version: number;
  updatedAt: number;
  usage: Usage;
  usageSoFar?: Usage | undefined;
  runStatus?: RunStatus | undefined;
  pendingApprovals?: number | undefined;
  /** The agent of its run in progress, else of its last run (listed sessions). */
  agent?: string | undefined;
}

/** A session as its detail shows it: with its machine's state. */
export interface SessionView extends SessionSummary {
  state: string;
}

/** `/api/sessions`: a page of sessions. */
export interface SessionPage {
  sessions: SessionSummary[];
  nextCursor?: string | undefined;
  /** How many sessions the server read for this page; `partial`: it stopped before the page was full. */
  scanned: number;
  partial: boolean;
}

/** A call waiting for a human's decision. */
export interface PendingApproval {
  runId: string;
  agentPath: string[];
  callId: string;
  name: string;
  arguments: string;
  deadline?: number | undefined;
}

/** One item of a session's history (a message, a tool call or its result, or another kind). */
export interface HistoryItem {
  type: string;
  role?: string;
  content?: unknown;
  name?: string;
  arguments?: string;
  output?: string;
}

/** `/api/sessions/:id`: a session with its runs, pending approvals and history tail. */
export interface SessionDetail {
  session: SessionView;
  runs: {
    runId: string;
    state: string;
    status?: string | undefined;
    current: boolean;
    startedAt?: number | undefined;
  }[];
  pendingApprovals: PendingApproval[];
  history: { total: number; from: number; items: HistoryItem[] };
  /** The workflow instance whose agent this session is: its decisions go through its host. */
  workflow?: { id: string; workflow: string; actorId: string } | undefined;
}

/** One journaled step of a run's timeline. */
export interface TimelineStep {
  step: number;
  kind: string;
  startedAt?: number | undefined;
  endedAt?: number | undefined;
  durationMs?: number | undefined;
  restarts: number;
  model?: {
    text?: string | undefined;
    toolCalls: { callId: string; name: string; arguments: string; subRunId?: string }[];
    usage: Usage;
  };
  tool?: {
    callId: string;
    name?: string | undefined;
    arguments?: string | undefined;
    output: string;
    isError: boolean;
    rejected?: boolean;
  };
  approvals?: { callId: string; needsApproval: boolean }[];
  guardrails?: { kind: string; name: string; tripwire: boolean }[];
  changes: { field: string; before: unknown; after: unknown }[];
}

/** One run of the tree with its timeline, its sub-agent runs in `children`. */
export interface RunTreeNode {
  runId: string;
  agentPath: string[];
  state: string;
  usage?: Usage | undefined;
  timeline: TimelineStep[];
  decisions?: { callId: string; name: string; decision: string; reason?: string | undefined }[];
  held?: boolean | undefined;
  children: RunTreeNode[];
}

/** `/api/sessions/:id/runs/:runId`: a run with its tree, snapshot and RunState. */
export interface RunDetail {
  runId: string;
  state: string;
  tree: RunTreeNode;
  snapshot: unknown;
  runState: unknown;
}

/** What an action answers: a recorded decision, a run's outcome, a cancel or a fork. */
export interface ActionResult {
  recorded?: boolean;
  callId?: string;
  decision?: string;
  /** A recorded resolution of a call in doubt: `retry`, `result` or `fail`. */
  action?: string;
  note?: string;
  runId?: string;
  interrupted?: boolean;
  interruptionReason?: string | undefined;
  output?: unknown;
  cancelled?: boolean;
  /** A cancel recorded for the process executing the run (PostgreSQL): that process stops it. */
  requested?: boolean;
  /** Who cancelled (the inspector's `operator`). */
  by?: string;
  sessionId?: string;
  parentId?: string;
  historyLength?: number;
}

/** `/api/sessions/:id/export`: a replay file (the page reads its run's id). */
export interface ReplayFile {
  run?: { runId: string } | undefined;
}

/** One frame of `/api/live` (Server-Sent Events): a snapshot or an event of a run in flight. */
export interface LiveFrame {
  sessionId: string;
  src: string;
  type: string;
  runId?: string | undefined;
  state?: string | undefined;
  eventType?: string | undefined;
  /** The agent, the journal step of a step actor, and the frame in words (`live-entry.ts`). */
  agent?: string | undefined;
  step?: number | undefined;
  text?: string | undefined;
}
