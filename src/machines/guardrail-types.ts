import type { SerializedError } from '../errors/agentstate-error.js';
import type { GuardrailResult } from '../errors/guardrail-errors.js';

/** What a guardrail step (input or output guardrails of a run) is given. */
export interface GuardrailCheckInput {
  runId: string;
  sessionId: string;
  step: number;
  kind: GuardrailResult['kind'];
  /** A sub-agent run's agent path (absent for the session's own run). */
  path?: string[] | undefined;
  /** The agent the run was handed off to, if any. */
  agent?: string | undefined;
  /** Where the session run's input items are in the history. */
  historyStart?: number | undefined;
  inputCount?: number | undefined;
  /** A sub-agent run's first user message. */
  input?: string | undefined;
  /** The final output (output guardrails). */
  output?: { text?: string | undefined; structured?: unknown } | undefined;
}

export interface GuardrailCheckOutput {
  results: GuardrailResult[];
  /** Set when a guardrail tripped: the run fails with it. */
  tripwire?: SerializedError | undefined;
}
