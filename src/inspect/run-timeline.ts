import type { GuardrailResult } from '../errors/guardrail-errors.js';
import type { GuardrailCheckOutput } from '../machines/guardrail-types.js';
import type {
  ApprovalCheckOutput,
  ModelStepOutput,
  ToolCallOutput,
} from '../machines/step-actor-io.js';
import type { RunUsage } from '../machines/run-usage.js';
import { addUsd } from '../validation/usd-amount.js';
import type { JournalEntry } from '../persistence/session-store.js';

/** One journaled step as the timeline shows it. */
export interface TimelineStep {
  step: number;
  kind: JournalEntry['kind'];
  /** Epoch ms it first started (absent in entries older than the field). */
  startedAt?: number | undefined;
  endedAt: number;
  durationMs?: number | undefined;
  /** Restored runs that started it again after a crash. */
  restarts: number;
  /** Times it was tried again after it failed (a model call, resumed); absent: never. */
  retries?: number | undefined;
  model?: {
    text?: string | undefined;
    toolCalls: { callId: string; name: string; arguments: string; subRunId?: string }[];
    usage: RunUsage;
  };
  tool?: {
    callId: string;
    name?: string | undefined;
    arguments?: string | undefined;
    output: string;
    isError: boolean;
    /** The call was rejected and did not run (the model read the rejection). */
    rejected?: boolean | undefined;
  };
  approvals?: { callId: string; needsApproval: boolean; deadline?: number | undefined }[];
  /** A guardrail step's results (input or output guardrails). */
  guardrails?: GuardrailResult[];
  /** What the step changed in the run's stored state (derived from the journal). */
  changes: StateChange[];
}

/** One field of the run's state before and after a step. */
export interface StateChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The run's state as the journal lets one follow it. */
export interface Folded {
  steps: number;
  modelCalls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | undefined;
  openCalls: string[];
  awaitingApproval: string[];
}

/**
 * A run's journal as a timeline: each step with its times, restarts and what it said (model
 * answers with tokens and cost, tool calls with their arguments and result or error, approval
 * checks, guardrail results), and the change each made to the run's state, followed through the journal.
 */
export function runTimeline(journal: readonly JournalEntry[]): TimelineStep[] {
  const calls = new Map<string, { name: string; arguments: string }>();
  let state = startState();
  return [...journal]
    .sort((a, b) => a.step - b.step)
    .map((entry) => {
      const base = {
        step: entry.step,
        kind: entry.kind,
        startedAt: entry.startedAt,
        endedAt: entry.at,
        durationMs: entry.startedAt === undefined ? undefined : entry.at - entry.startedAt,
        restarts: entry.restarts ?? 0,
        ...(entry.retries ? { retries: entry.retries } : {}),
      };
      const before = state;
      let out: TimelineStep;
      switch (entry.kind) {
        case 'model': {
          const o = entry.output as ModelStepOutput;
          for (const c of o.toolCalls) calls.set(c.callId, c);
          out = {
            ...base,
            model: {
              text: o.text,
              toolCalls: o.toolCalls.map((c) => ({
                callId: c.callId,
                name: c.name,
                arguments: c.arguments,
                ...(c.subRun ? { subRunId: c.subRun.runId } : {}),
              })),
              usage: o.usage,
            },
            changes: [],
          };
          state = {
            ...state,
            modelCalls: state.modelCalls + 1,
            inputTokens: state.inputTokens + o.usage.inputTokens,
            outputTokens: state.outputTokens + o.usage.outputTokens,
            costUsd:
              state.costUsd === undefined || o.usage.costUsd === undefined
                ? undefined
                : addUsd(state.costUsd, o.usage.costUsd),
            openCalls: o.toolCalls.map((c) => c.callId),
          };
          break;
        }
        case 'tool': {
          const o = entry.output as ToolCallOutput;
          const call = calls.get(o.callId);
          out = {
            ...base,
            tool: {
              callId: o.callId,
              name: call?.name ?? o.result?.name,
              arguments: call?.arguments,
              output: o.result?.output ?? '',
              isError: o.isError,
              ...(o.rejected ? { rejected: true } : {}),
            },
            changes: [],
          };
          state = {
            ...state,
            toolCalls: state.toolCalls + 1,
            openCalls: state.openCalls.filter((id) => id !== o.callId),
            awaitingApproval: state.awaitingApproval.filter((id) => id !== o.callId),
          };
          break;
        }
        case 'approval': {
          const o = entry.output as ApprovalCheckOutput;
          out = {
            ...base,
            approvals: o.decisions.map((d) => ({
              callId: d.callId,
              needsApproval: d.needsApproval,
              deadline: d.deadline,
            })),
            changes: [],
          };
          state = {
            ...state,
            awaitingApproval: o.decisions.filter((d) => d.needsApproval).map((d) => d.callId),
          };
          break;
        }
        case 'guardrail': {
          const o = entry.output as GuardrailCheckOutput;
          out = { ...base, guardrails: o.results, changes: [] };
          break;
        }
        case 'event': // a hosted app machine's entries, never in a run's journal
        case 'step':
          out = { ...base, changes: [] };
          break;
      }
      state = { ...state, steps: state.steps + 1 };
      out.changes = changesBetween(before, state);
      return out;
    });
}

/** The state the journal folds from: a run before its first step. */
export function startState(): Folded {
  return {
    steps: 0,
    modelCalls: 0,
    toolCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    openCalls: [],
    awaitingApproval: [],
  };
}

function changesBetween(before: Folded, after: Folded): StateChange[] {
  return (Object.keys(after) as (keyof Folded)[])
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((field) => ({ field, before: before[field], after: after[field] }));
}
