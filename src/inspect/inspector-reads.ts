import { RunNotFoundError } from '../errors/replay-errors.js';
import type { RunMachineContext } from '../machines/run-types.js';
import type { SubRunSummary } from '../machines/sub-run-types.js';
import type { RunUsage } from '../machines/run-usage.js';
import type { SessionKey } from '../persistence/session-store.js';
import { pausedRuns, runState, subRunsOf, type RunNode } from '../runs/run-tree.js';
import { runStateData } from '../runs/run-state.js';
import { runTreeUsage } from '../runs/run-status.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { storedRun } from '../runs/stored-run.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';
import { runTimeline, type TimelineStep } from './run-timeline.js';

/** How many of the newest history items a session's detail carries. */
const HISTORY_TAIL = 50;

/** A call waiting for a human's decision, somewhere in the run tree. */
export interface PendingApproval {
  runId: string;
  agentPath: string[];
  callId: string;
  name: string;
  arguments: string;
  deadline?: number | undefined;
}

/** One run of the tree with its timeline, its sub-agent runs nested under it. */
export interface RunTreeNode {
  runId: string;
  agentPath: string[];
  state: string;
  status?: string | undefined;
  turn?: number | undefined;
  usage?: RunUsage | undefined;
  timeline: TimelineStep[];
  /** The current turn's calls that needed a human's decision, and the decision taken. */
  decisions?: { callId: string; name: string; decision: string; reason?: string | undefined }[];
  /** Its decisions were recorded without running them: the calls wait for a resume. */
  held?: boolean | undefined;
  /** Steps started and not journaled yet (in flight, or failed: `error`), by step number. */
  started?: Record<string, { at: number; restarts: number; retries?: number | undefined }>;
  /** Why the run failed, or why the model call that interrupted it failed. */
  error?: { name?: string; message: string; code?: string | undefined } | undefined;
  children: RunTreeNode[];
}

/** The stored record of a session, read only after the runtime found the key (partition). */
async function loadChecked(runtime: SessionRuntime, key: SessionKey) {
  const view = await runtime.getSession(key);
  const record = await runtime.store.load(key);
  return { view, root: storedRun<RunNode>(record.snapshot), snapshot: record.snapshot };
}

/** Calls waiting for a decision in the run tree under `root`. */
export function pendingApprovals(root: RunNode | undefined): PendingApproval[] {
  if (!root) return [];
  return pausedRuns(root)
    .filter((r) => runState(r) === 'awaitingApproval')
    .flatMap((r) => {
      const ctx = r.context!;
      return ctx.calls
        .filter((c) => c.needsApproval && c.decision === undefined)
        .map((c) => ({
          runId: ctx.runId,
          agentPath: ctx.agentPath ?? [ctx.agentName],
          callId: c.callId,
          name: c.name,
          arguments: c.arguments,
          deadline: c.deadline,
        }));
    });
}

/** A session as the page shows it: record, state, runs, pending approvals, usage, history tail. */
export async function sessionDetail(runtime: SessionRuntime, key: SessionKey) {
  const { view, root } = await loadChecked(runtime, key);
  const from = Math.max(0, view.historyLength - HISTORY_TAIL);
  const history = await runtime.store.readHistory(key, from, view.historyLength);
  const runs = [
    ...(root?.context
      ? [
          {
            runId: root.context.runId,
            state: runState(root),
            status: view.runStatus?.status,
            error: view.runStatus?.error,
            current: true,
            startedAt: root.context.startedAt,
          },
        ]
      : []),
    ...(view.lastRun && view.lastRun.runId !== root?.context?.runId
      ? [
          {
            runId: view.lastRun.runId,
            state: view.lastRun.status,
            status: view.lastRun.status,
            error: view.lastRun.error,
            current: false,
            startedAt: view.lastRun.startedAt,
          },
        ]
      : []),
  ];
  const { run: _run, ...session } = view;
  return {
    session,
    runState: root ? runState(root) : undefined,
    runs,
    pendingApprovals: pendingApprovals(root),
    history: { total: view.historyLength, from, items: history },
  };
}

/**
 * One run of a session (its current run or its last: the only ones kept): its journal as a
 * timeline with times and restarts, its sub-agent runs nested, the persisted snapshot of the
 * run (if still held) and its RunState.
 */
export async function runDetail(runtime: SessionRuntime, key: SessionKey, runId: string) {
  const { view, root } = await loadChecked(runtime, key);
  const current = root?.context?.runId === runId ? root : undefined;
  const last = view.lastRun?.runId === runId ? view.lastRun : undefined;
  if (!current && !last) throw new RunNotFoundError(key.sessionId, runId);
  const journalOf = async (id: string) =>
    runTimeline(await readCheckedJournal(runtime.store, key, id));
  let tree: RunTreeNode;
  if (current) {
    tree = await nodeOf(current, journalOf);
  } else {
    const summary = last!;
    tree = {
      runId,
      agentPath: summary.agentPath ?? [summary.agentName],
      state: summary.status,
      status: summary.status,
      turn: summary.turn,
      usage: summary.usage,
      timeline: await journalOf(runId),
      ...(summary.error ? { error: summary.error } : {}),
      children: [],
    };
    await nestFinished(tree, summary.subRuns, journalOf);
  }
  const ctx = current?.context;
  const base = ctx ?? last!;
  const items = await runtime.store.readHistory(key, base.historyStart, view.historyLength);
  const pending = pendingApprovals(current);
  const stopped = current && pausedRuns(current).find((r) => runState(r) === 'interrupted');
  return {
    runId,
    current: current !== undefined,
    state: tree.state,
    /** What the run does or how it ended (crashed, failed with its error, ...), if it is the session's. */
    runStatus: view.runStatus?.runId === runId ? view.runStatus : undefined,
    tree,
    snapshot: current ?? null,
    runState: runStateData(
      key,
      { ...base, runId },
      {
        status: current ? 'interrupted' : last!.status,
        interruptionReason: pending.length ? 'approval' : stopped?.context?.interruption,
        items,
        interruptions: pending,
      },
    ),
  };
}

async function nodeOf(
  run: RunNode,
  journalOf: (runId: string) => Promise<TimelineStep[]>,
): Promise<RunTreeNode> {
  const ctx = run.context as RunMachineContext;
  const node: RunTreeNode = {
    runId: ctx.runId,
    agentPath: ctx.agentPath ?? [ctx.agentName],
    state: runState(run),
    status: ctx.outcome,
    turn: ctx.turn,
    usage: runTreeUsage(run),
    timeline: await journalOf(ctx.runId),
    decisions: ctx.calls
      .filter((c) => c.needsApproval)
      .map((c) => ({
        callId: c.callId,
        name: c.name,
        decision: c.decision ?? 'pending',
        reason: c.reason,
      })),
    ...(ctx.held === true && runState(run) === 'awaitingApproval' ? { held: true } : {}),
    ...(ctx.stepStarts ? { started: ctx.stepStarts } : {}),
    ...(ctx.error ? { error: ctx.error } : {}),
    children: await Promise.all(subRunsOf(run).map((child) => nodeOf(child, journalOf))),
  };
  await nestFinished(node, ctx.subRuns, journalOf);
  return node;
}

/**
 * Adds a run's finished sub-agent runs (their summaries, children of children included) to its
 * tree, each under the run whose model call started it (else under `root`); runs the tree holds
 * already are left as they are.
 */
async function nestFinished(
  root: RunTreeNode,
  summaries: readonly SubRunSummary[] | undefined,
  journalOf: (runId: string) => Promise<TimelineStep[]>,
): Promise<void> {
  const all = (n: RunTreeNode): RunTreeNode[] => [n, ...n.children.flatMap(all)];
  const known = new Set(all(root).map((n) => n.runId));
  const finished = await Promise.all(
    (summaries ?? [])
      .filter((s) => !known.has(s.runId))
      .map(async (s): Promise<RunTreeNode> => ({
        runId: s.runId,
        agentPath: s.agentPath,
        state: s.status,
        status: s.status,
        turn: s.turns,
        usage: s.usage,
        timeline: await journalOf(s.runId),
        ...(s.error ? { error: s.error } : {}),
        children: [],
      })),
  );
  const nodes = [...all(root), ...finished];
  for (const child of finished) {
    const parent = nodes.find((n) =>
      n.timeline.some((t) => t.model?.toolCalls.some((c) => c.subRunId === child.runId)),
    );
    (parent ?? root).children.push(child);
  }
}
