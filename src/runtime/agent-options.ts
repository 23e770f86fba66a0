import type { z } from 'zod';
import type { RunContext } from '../context/run-context.js';
import type { Budget } from '../machines/session-types.js';
import type { Model } from '../models/model.js';
import type { PriceTable } from '../models/pricing.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { AnyTool } from '../tools/tool.js';
import type { Toolkit } from '../tools/toolkit.js';
import type { Clock } from './clock.js';

/** The blueprint of an agent. Holds no per-request state; safe to share across users. */
export interface AgentOptions<TOutput = string> {
  name: string;
  /** A string, or a function of the run's context (resolved once per session binding). */
  instructions?: string | ((context: RunContext) => string | Promise<string>) | undefined;
  model: Model;
  tools?: AnyTool[] | undefined;
  /** Factories of per-session tools, created once per binding and closed with it. */
  toolkits?: Toolkit[] | undefined;
  /** @default 10 */
  maxTurns?: number | undefined;
  /** When set, the final answer must be JSON matching it; `result.output` is the parsed value. */
  outputType?: z.ZodType<TOutput> | undefined;
  /**
   * Where sessions live. Runs with a `sessionId` and no store use a LevelDB folder
   * (`./.agentstate`); runs with neither stay in memory.
   */
  store?: SessionStore | undefined;
  /** @default the system clock */
  clock?: Clock | undefined;
  /** Extra or replacement model prices for cost accounting. */
  prices?: PriceTable | undefined;
  /** Pending approvals are rejected with reason `timeout` after this many ms. */
  approvalTimeoutMs?: number | undefined;
  /** Limits on each user's totals across all their sessions. */
  userBudget?: Budget | undefined;
}
