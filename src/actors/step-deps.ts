import type { z } from 'zod';
import type { RunContext } from '../context/run-context.js';
import type { Model, ToolSpec } from '../models/model.js';
import type { PriceTable } from '../models/pricing.js';
import type { Clock } from '../runtime/clock.js';
import type { AnyTool } from '../tools/tool.js';
import type { SessionLog } from './session-log.js';

/** Progress the step actors report while they work (for `agent.stream`). */
export type StepProgress =
  | { type: 'text_delta'; runId: string; delta: string }
  | { type: 'tool_call_started'; runId: string; callId: string; name: string; arguments: string }
  | {
      type: 'tool_call_finished';
      runId: string;
      callId: string;
      name: string;
      output: string;
      isError: boolean;
    };

/** Everything the step actors of one loaded session need; built by the runtime. */
export interface StepDeps {
  agentName: string;
  log: SessionLog;
  model: Model;
  tools: ReadonlyMap<string, AnyTool>;
  toolSpecs: ToolSpec[];
  /** Resolved instructions (the session's system prompt wins). */
  instructions(): string | undefined;
  /** The session's model-name override. */
  modelName(): string | undefined;
  /** Where the model starts reading the history (moved by `clearSession`). */
  historyFrom(): number;
  outputType?: z.ZodType | undefined;
  outputSchema?: Record<string, unknown> | undefined;
  /** The RunContext a run's tools see. */
  contextFor(runId: string): RunContext;
  clock: Clock;
  prices?: PriceTable | undefined;
  /** Approval deadline relative to when the call was checked, in ms. */
  approvalTimeoutMs?: number | undefined;
  /** Aborted when the caller cancels. */
  signal: AbortSignal;
  /** Set while streaming: receives deltas and tool progress; the model is then streamed. */
  progress?: ((event: StepProgress) => void) | undefined;
}

/** The caller's signal and the actor's own (aborted when XState stops it) as one. */
export function combinedSignal(deps: StepDeps, actorSignal: AbortSignal): AbortSignal {
  return AbortSignal.any([deps.signal, actorSignal]);
}
