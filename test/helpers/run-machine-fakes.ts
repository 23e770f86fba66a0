/** Instant fake step actors for testing the pure run machine without the runtime. */
import { fromPromise } from 'xstate';
import type {
  ApprovalCheckInput,
  ApprovalCheckOutput,
  DurableTimerInput,
  DurableTimerOutput,
  ModelStepInput,
  ModelStepOutput,
  ToolCallInput,
  ToolCallOutput,
} from '../../src/machines/step-actor-io.js';
import type { RunMachineInput } from '../../src/machines/run-types.js';

export const usage = (inputTokens = 10, outputTokens = 5) => ({
  inputTokens,
  outputTokens,
  cachedTokens: 0,
  costUsd: 0.001,
});

/** A final answer. */
export const answer = (text: string): ModelStepOutput => ({ text, toolCalls: [], usage: usage() });

/** A turn asking for tool calls; ids are `<name>-t<turn>`. `check` marks approval-checked tools. */
export const callTools = (
  turn: number,
  names: string[],
  check: string[] = [],
): ModelStepOutput => ({
  toolCalls: names.map((name) => ({
    type: 'tool_call' as const,
    callId: `${name}-t${turn}`,
    name,
    arguments: JSON.stringify({ turn }),
    check: check.includes(name),
  })),
  usage: usage(),
});

export const runInput = (overrides: Partial<RunMachineInput> = {}): RunMachineInput => ({
  runId: 'run-1',
  sessionId: 'session-1',
  agentName: 'agent',
  maxTurns: 10,
  historyStart: 0,
  startedAt: 1_000,
  inputCount: 1,
  budget: {},
  standingDecisions: {},
  ...overrides,
});

export interface FakeOptions {
  /** The model's answer for each step input (turn, step). */
  model: (input: ModelStepInput, signal: AbortSignal) => ModelStepOutput | Promise<ModelStepOutput>;
  /** Runs a tool call; defaults to an instant success. */
  tool?: (input: ToolCallInput, signal: AbortSignal) => ToolCallOutput | Promise<ToolCallOutput>;
  /** Tool names that need approval. */
  approve?: string[];
}

/** Fake actors plus a log of every call they received. */
export function fakeActors(options: FakeOptions) {
  const log = {
    model: [] as ModelStepInput[],
    tools: [] as ToolCallInput[],
    approvals: [] as ApprovalCheckInput[],
    timers: [] as DurableTimerInput[],
  };
  const actors = {
    modelStep: fromPromise<ModelStepOutput, ModelStepInput>(async ({ input, signal }) => {
      log.model.push(input);
      return options.model(input, signal);
    }),
    toolCall: fromPromise<ToolCallOutput, ToolCallInput>(async ({ input, signal }) => {
      log.tools.push(input);
      if (options.tool) return options.tool(input, signal);
      return { callId: input.call.callId, isError: input.rejection !== undefined };
    }),
    approvalCheck: fromPromise<ApprovalCheckOutput, ApprovalCheckInput>(async ({ input }) => {
      log.approvals.push(input);
      return {
        decisions: input.calls.map((c) => ({
          callId: c.callId,
          needsApproval: (options.approve ?? []).includes(c.name),
        })),
      };
    }),
    // Waits for a deadline that never comes in these tests (until stopped).
    durableTimer: fromPromise<DurableTimerOutput, DurableTimerInput>(({ input, signal }) => {
      log.timers.push(input);
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
      );
    }),
  };
  return { actors, log };
}

/** True when `value` is made only of plain objects, arrays and JSON primitives. */
export function isPlainJson(value: unknown): boolean {
  if (value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value)) {
    return typeof value !== 'number' || Number.isFinite(value);
  }
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as Record<string, unknown>).every(isPlainJson);
}
