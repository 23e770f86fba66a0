import type { z } from 'zod';
import type { GuardrailResult } from '../errors/guardrail-errors.js';
import type { GuardrailCheckOutput as GuardrailCheckOutputSchema } from './schemas/step-output-by-kind.js';

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

/** What a guardrail step answers and journals; `tripwire` is set when a guardrail tripped. */
export type GuardrailCheckOutput = z.output<typeof GuardrailCheckOutputSchema>;
