import type { ApprovalCheckOutput, ToolCallOutput } from '../machines/step-actor-io.js';
import type { ReplayFile } from '../models/replay-file.js';
import type { JournalEntry } from '../persistence/session-store.js';
import { stepTrajectory } from './trajectory.js';
import type { EvalDecision, EvalOutcome, EvalToolCall, EvalUsage } from './eval-row.js';

/**
 * What a recorded run or model step did, in the terms of an eval row: its usage, its tool
 * calls in time order, the approvals as decided, one step's answer as an outcome.
 */

export function usageOf(u: {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number | undefined;
}): EvalUsage {
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    ...(u.costUsd === undefined ? {} : { costUsd: u.costUsd }),
  };
}

/** What one model step of `agent` answered, as an outcome (one turn, its step's trajectory). */
export function stepOutcome(
  agent: string,
  out: {
    text?: string | undefined;
    toolCalls: readonly { name: string; arguments: string }[];
    usage: { inputTokens: number; outputTokens: number; costUsd?: number | undefined };
    structured?: unknown;
  },
): EvalOutcome {
  return {
    status: 'completed',
    ...(out.text === undefined ? {} : { output: out.text }),
    ...(out.structured === undefined ? {} : { structured: out.structured }),
    toolCalls: out.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })),
    trajectory: stepTrajectory(agent, out),
    turns: 1,
    usage: usageOf(out.usage),
  };
}

/** Every tool call the run's answers asked for, its sub-agent runs' included, in time order. */
export function toolCallsOf(replay: ReplayFile): EvalToolCall[] {
  return replay.runs
    .flatMap((run, r) => run.modelCalls.map((call) => ({ call, r })))
    .sort((a, b) => a.call.at - b.call.at || a.r - b.r || a.call.step - b.call.step)
    .flatMap(({ call }) =>
      call.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args })),
    );
}

/**
 * The approvals decided during the run (its sub-agent runs' too), in the order they were
 * asked: each call an approval check made wait, approved when its tool step ran it, rejected
 * (with the message the model read) when the step records a rejection. Calls still waiting
 * have no decision.
 */
export function decisionsOf(
  replay: ReplayFile,
  journals: Map<string, JournalEntry[]>,
): EvalDecision[] {
  const asked: { at: number; r: number; step: number; decision: EvalDecision }[] = [];
  replay.runs.forEach((run, r) => {
    const journal = journals.get(run.runId) ?? [];
    const names = new Map(
      run.modelCalls.flatMap((m) => m.toolCalls.map((c) => [c.callId, c.name])),
    );
    for (const entry of journal) {
      if (entry.kind !== 'approval') continue;
      for (const call of (entry.output as ApprovalCheckOutput).decisions) {
        if (!call.needsApproval) continue;
        const done = journal.find(
          (e) => e.kind === 'tool' && (e.output as ToolCallOutput).callId === call.callId,
        );
        if (!done) continue;
        const result = done.output as ToolCallOutput;
        const tool = names.get(call.callId) ?? result.result?.name ?? '';
        asked.push({
          at: entry.at,
          r,
          step: entry.step,
          decision: result.rejected
            ? {
                tool,
                decision: 'reject',
                ...(result.result ? { message: result.result.output } : {}),
              }
            : { tool, decision: 'approve' },
        });
      }
    }
  });
  return asked.sort((a, b) => a.at - b.at || a.r - b.r || a.step - b.step).map((a) => a.decision);
}

/** What a run did, from its replay and (when it is the session's last run) its summary. */
export function runOutcome(
  replay: ReplayFile,
  last:
    | { structured?: unknown; error?: { code?: string | undefined; message: string } | undefined }
    | undefined,
  trajectory: string[],
): EvalOutcome {
  return {
    status: replay.run.status,
    ...(replay.run.output === undefined ? {} : { output: replay.run.output }),
    ...(last?.structured === undefined ? {} : { structured: last.structured }),
    toolCalls: toolCallsOf(replay),
    trajectory,
    turns: replay.run.turns,
    usage: usageOf(replay.run.usage),
    ...(last?.error
      ? {
          error: {
            ...(last.error.code ? { code: last.error.code } : {}),
            message: last.error.message,
          },
        }
      : {}),
  };
}
