import type { z } from 'zod';
import type { SerializedError } from '../errors/agentstate-error.js';
import type { RunFinalStatus } from './run-types.js';
import type { RunUsage } from './run-usage.js';
import type * as Schema from './schemas/run-schemas.js';

/**
 * A sub-agent call's child run, fixed by the model step that made the call (and journaled
 * with it), so a replay starts the same child. Defined once, by its schema (its fields are
 * documented there).
 */
export type SubRunSpec = z.output<typeof Schema.SubRunSpec>;

/** How a child run ended, as its parent's call reads it. */
export type SubRunResult = z.output<typeof Schema.SubRunResult>;

/**
 * One sub-agent run of a run (children of children included), for `RunResult.subRuns`. Tied
 * to its schema in `stored-shapes.ts`: its usage is a `RunUsage`, whose `costUsd` key is
 * always present in memory.
 */
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
