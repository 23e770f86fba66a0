import { AgentStateError } from '../errors/agentstate-error.js';
import { RunNotFoundError } from '../errors/replay-errors.js';
import type { Item } from '../items/item.js';
import type { ModelStepOutput, ToolCallOutput } from '../machines/step-actor-io.js';
import type { SessionKey } from '../persistence/session-store.js';
import { readCheckedJournal } from '../runs/stored-session-check.js';
import type { SessionRuntime } from '../sessions/session-runtime.js';
import { runTimeline, startState, type TimelineStep } from './run-timeline.js';
import { stepLabel } from './run-waterfall.js';

/** The run's context as the journal lets one rebuild it, at one point of the run. */
export interface RunContextAt {
  /** Items in the session's history. */
  historyLength: number;
  /** The run's counters and open calls (see `runTimeline`'s state changes). */
  [field: string]: unknown;
}

/** One step of a run, with the run's context before and after it. */
export interface StepFrame {
  step: number;
  kind: TimelineStep['kind'];
  label: string;
  startedAt?: number | undefined;
  before: RunContextAt;
  after: RunContextAt;
  /** The fields the step changed. */
  changed: string[];
  /** The history items the step added (none for approval checks and guardrails). */
  added: { position: number; item: Item }[];
  /**
   * Where a fork "from this step" cuts the history: before the model call of this step's turn
   * (a model step: before itself), where no tool call is without its result.
   */
  forkAt: number;
}

/**
 * A session's run (its current or last) step by step: each journaled step with the run's
 * context before and after it, folded from the journal (`runTimeline`'s state changes) plus the
 * history length the journal gives (a model answer's end, each tool result's place), the items
 * it added, and the history position a fork from it takes. 404 for a run the session does not
 * keep.
 */
export async function runFrames(
  runtime: SessionRuntime,
  key: SessionKey,
  runId: string,
): Promise<{ runId: string; historyStart: number; frames: StepFrame[] }> {
  const view = await runtime.getSession(key);
  const base =
    view.run?.context.runId === runId
      ? view.run.context
      : view.lastRun?.runId === runId
        ? view.lastRun
        : undefined;
  if (!base) throw new RunNotFoundError(key.sessionId, runId);
  const journal = await readCheckedJournal(runtime.store, key, runId);
  const outputs = new Map(journal.map((e) => [e.step, e.output]));
  const timeline = runTimeline(journal);
  const items = await runtime.store.readHistory(key, base.historyStart, view.historyLength);
  const itemAt = (position: number) => items[position - base.historyStart];
  let context: RunContextAt = {
    historyLength: base.historyStart + base.inputCount,
    ...startState(),
  };
  const resultAt = new Map<string, number>(); // callId -> its result's history position
  const frames = timeline.map((step) => {
    const before = context;
    let historyLength = before.historyLength;
    const out = outputs.get(step.step);
    if (step.kind === 'model') {
      const answer = out as ModelStepOutput;
      historyLength = answer.historyEnd ?? historyLength;
      answer.toolCalls.forEach((c, i) => resultAt.set(c.callId, historyLength + i));
    } else if (step.kind === 'tool') {
      const at = resultAt.get((out as ToolCallOutput).callId);
      if (at !== undefined) historyLength = Math.max(historyLength, at + 1);
    }
    const after: RunContextAt = {
      ...before,
      ...Object.fromEntries(step.changes.map((c) => [c.field, c.after])),
      historyLength,
    };
    context = after;
    const added = [];
    for (let p = before.historyLength; p < historyLength; p++) {
      const item = itemAt(p);
      if (item) added.push({ position: p, item });
    }
    return {
      step: step.step,
      kind: step.kind,
      label: stepLabel(step),
      startedAt: step.startedAt,
      before,
      after,
      changed: Object.keys(after).filter(
        (k) => JSON.stringify(after[k]) !== JSON.stringify(before[k]),
      ),
      added,
      forkAt: before.historyLength,
    };
  });
  // A step after a model call forks where its turn's calls all have their results.
  let next = context.historyLength;
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i]!;
    if (frame.kind === 'model') next = frame.before.historyLength;
    else frame.forkAt = next;
  }
  return { runId, historyStart: base.historyStart, frames };
}

/** How a fork differs from the session it was forked from. */
export interface ForkOrigin {
  parentId: string;
  /** The parent can no longer be read (deleted, or another user's). */
  missing?: boolean | undefined;
  /** Items both histories start with: where the fork was cut (when nothing was changed since). */
  shared?: number | undefined;
  parentLength?: number | undefined;
  length?: number | undefined;
  /** The items after `shared`, in the fork and in the parent (the first 100 of each). */
  onlyHere?: { position: number; item: Item }[] | undefined;
  onlyParent?: { position: number; item: Item }[] | undefined;
}

const DIFF_LIMIT = 100;

/**
 * A forked session's origin: its parent and the diff of the two histories (the items they
 * share from the start, then each one's own). `undefined` for a session that is not a fork.
 */
export async function forkOrigin(
  runtime: SessionRuntime,
  key: SessionKey,
): Promise<ForkOrigin | null> {
  const info = await runtime.getSessionInfo(key);
  if (info.parentId === undefined) return null;
  const parentKey = { sessionId: info.parentId, userId: key.userId };
  let parentLength: number;
  try {
    parentLength = (await runtime.getSessionInfo(parentKey)).historyLength;
  } catch (error) {
    if (error instanceof AgentStateError && error.code === 'SESSION_NOT_FOUND') {
      return { parentId: info.parentId, missing: true };
    }
    throw error;
  }
  const [own, parent] = await Promise.all([
    runtime.store.readHistory(key, 0, info.historyLength),
    runtime.store.readHistory(parentKey, 0, parentLength),
  ]);
  let shared = 0;
  while (
    shared < own.length &&
    shared < parent.length &&
    JSON.stringify(own[shared]) === JSON.stringify(parent[shared])
  ) {
    shared++;
  }
  const tail = (items: Item[]) =>
    items.slice(shared, shared + DIFF_LIMIT).map((item, i) => ({ position: shared + i, item }));
  return {
    parentId: info.parentId,
    shared,
    parentLength,
    length: own.length,
    onlyHere: tail(own),
    onlyParent: tail(parent),
  };
}
