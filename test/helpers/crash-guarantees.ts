/**
 * What the crash test checks of each durability mode, from the worker's own counters: the tool
 * log (one line per tool execution), the model-call log (one line per model call) and what each
 * resumed process found stored before it went on (`WorkerRound.durable`).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { KillRecord, ToolLogLine } from './crash-log.js';
import type { WorkerRound } from './crash-driver.js';
import { SessionNotFoundError } from '../../src/errors/session-errors.js';
import { LevelSessionStore } from '../../src/persistence/kv/level-session-store.js';
import { storedRun } from '../../src/runs/stored-run.js';
import { CRASH_SESSION } from './crash-point.js';

/**
 * How many tool results the store at `dbDir` holds for the session's stored run (its run in
 * progress, else its last one): the call a resume starts at. Read between two workers.
 */
export async function storedToolResults(dbDir: string): Promise<number> {
  const store = await LevelSessionStore.open({ path: dbDir });
  try {
    const record = await store.load(CRASH_SESSION).catch((error: unknown) => {
      if (error instanceof SessionNotFoundError) return undefined;
      throw error;
    });
    const snapshot = record?.snapshot as { context?: { lastRun?: { runId: string } } } | undefined;
    const runId =
      storedRun<{ context?: { runId: string } }>(snapshot)?.context?.runId ??
      snapshot?.context?.lastRun?.runId;
    if (!runId) return 0;
    const journal = await store.readRunJournal(CRASH_SESSION, runId);
    return journal.filter((e) => e.kind === 'tool').length;
  } finally {
    await store.close();
  }
}

/** One model call the worker made: the call number it asked for (`steps`: the final answer). */
export interface ModelCallLine {
  n: number;
  pid: number;
}

/** The worker's model calls in this folder, in order (`<logFile>.model-calls`). */
export function readModelCalls(logFile: string): ModelCallLine[] {
  const file = `${logFile}.model-calls`;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [n, pid] = line.split(' ').map(Number);
      return { n: n!, pid: pid! };
    });
}

/** A round after a kill: what it found stored and where its lines start. */
export interface ResumedRound {
  round: WorkerRound;
  /** The kill just before it. */
  kill: KillRecord;
}

/**
 * Every mode: a resumed process goes on exactly where the store says, never before (a stored
 * tool result is not executed again) and never past it (nothing unstored is skipped). Its
 * first tool call is `call-<stored tool results>`; its first model call asks for that call, or
 * (the stored model step asked for it already, its tool was in flight) for the next one, unless
 * `exact` (a run restarted from a pause, whose model step must run again).
 */
export function resumeProblems(
  resumed: ResumedRound[],
  lines: ToolLogLine[],
  models: ModelCallLine[],
  steps: number,
  exact: boolean,
): string[] {
  const problems: string[] = [];
  for (const { round, kill } of resumed) {
    const stored = round.durable;
    if (!stored) {
      problems.push(`after ${kill.point}: the resume printed no durable point`);
      continue;
    }
    const at = `after ${kill.point} (stored ${stored.tools}, ${stored.state})`;
    if (stored.tools >= steps) continue;
    const firstTool = lines[kill.linesAtKill];
    if (firstTool && firstTool.pid === round.pid && firstTool.n !== stored.tools) {
      problems.push(`${at}: the next process first ran call ${firstTool.n}`);
    }
    const firstModel = models.find((m) => m.pid === round.pid);
    const allowed = exact ? [stored.tools] : [stored.tools, stored.tools + 1];
    if (firstModel && !allowed.includes(firstModel.n)) {
      problems.push(`${at}: the next process first asked the model for call ${firstModel.n}`);
    }
  }
  return problems;
}

/**
 * 'run': after a kill the store holds the run as it was at its last pause (an interruption by
 * a failed model call, at one of `pauses`), at its end, or not at all (killed before its first
 * pause): never a run in flight.
 */
export function runModeProblems(
  resumed: ResumedRound[],
  pauses: number[],
  steps: number,
): string[] {
  const problems: string[] = [];
  for (const { round, kill } of resumed) {
    const stored = round.durable;
    if (!stored) continue; // reported by resumeProblems
    const point =
      (stored.state === 'none' && stored.tools === 0) ||
      (stored.state === 'interrupted' && pauses.includes(stored.tools)) ||
      (stored.state === 'ended' && stored.tools === steps);
    if (!point) {
      problems.push(
        `after ${kill.point}: stored ${stored.tools} tool results, run ${stored.state}`,
      );
    }
  }
  return problems;
}

/**
 * 'run': tool calls may run again, each with its own call id as key; within one process the
 * calls run in order, one after another, from where that process started.
 */
export function runModeToolLogProblems(lines: ToolLogLine[], maxRuns: number): string[] {
  const problems: string[] = [];
  for (const line of lines) {
    if (line.callId !== `call-${line.n}`)
      problems.push(`line ${line.index}: key ${line.callId} for call ${line.n}`);
  }
  for (let i = 1; i < lines.length; i++) {
    const [before, line] = [lines[i - 1]!, lines[i]!];
    if (before.pid === line.pid && line.n !== before.n + 1)
      problems.push(`line ${i}: call ${line.n} after call ${before.n} in process ${line.pid}`);
  }
  const counts = new Map<number, number>();
  for (const line of lines) counts.set(line.n, (counts.get(line.n) ?? 0) + 1);
  for (const [n, count] of counts) {
    if (count > maxRuns) problems.push(`call ${n} ran ${count} times`);
  }
  return problems;
}
