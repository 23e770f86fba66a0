import type { SerializedError } from '../errors/agentstate-error.js';
import type { RunFinalStatus } from './run-types.js';
import type { RunUsage } from './run-usage.js';

/**
 * A sub-agent call's child run, fixed by the model step that made the call (and journaled
 * with it), so a replay starts the same child.
 */
export interface SubRunSpec {
  /** The sub-agent's name. */
  name: string;
  /** The child run's ULID. */
  runId: string;
  /** The child's first user message, from the call's validated arguments. */
  input: string;
  maxTurns: number;
  /** Epoch ms. */
  startedAt: number;
  /** The caller's metadata, merged over the parent's in the child's RunContext. */
  metadata?: Record<string, unknown> | undefined;
  /** Explicit overrides of the child's RunContext (inherited from the parent otherwise). */
  userId?: string | undefined;
  sessionId?: string | undefined;
  /** A failed child fails the parent run instead of becoming a tool error item. */
  failParent?: boolean | undefined;
  /** The sub-agent has input guardrails that run before its first model call. */
  inputGuardrails?: boolean | undefined;
  /** The sub-agent's definition fingerprint when the call was made: the child run's own. */
  definition?: Record<string, string> | undefined;
}

/** How a child run ended, as its parent's call reads it. */
export interface SubRunResult {
  status: RunFinalStatus;
  output?: string | undefined;
  structured?: unknown;
  error?: SerializedError | undefined;
}

/** One sub-agent run of a run (children of children included), for `RunResult.subRuns`. */
export interface SubRunSummary {
  runId: string;
  /** Names of the agents from the top-level one down to this one. */
  agentPath: string[];
  status: RunFinalStatus;
  turns: number;
  usage: RunUsage;
  output?: string | undefined;
  error?: SerializedError | undefined;
}
