import type { z } from 'zod';
import type { AnsweredMessage } from './answered-messages.js';
import type {
  Budget as BudgetSchema,
  UsageTotals as UsageTotalsSchema,
} from './schemas/run-schemas.js';
import { addUsd } from '../validation/usd-amount.js';
import type { RunEvent, RunMachineInput, RunMachineOutput, StandingDecision } from './run-types.js';
import type { RunUsage } from './run-usage.js';

/** Running totals of a session or a user. Plain JSON (its schema: `schemas/run-schemas.ts`). */
export type UsageTotals = z.output<typeof UsageTotalsSchema>;

export const emptyTotals = (): UsageTotals => ({
  turns: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
});

/** `totals` with a run's turns and usage added (an unpriced run's unknown cost adds nothing). */
export const addRunUsage = (totals: UsageTotals, turns: number, usage: RunUsage): UsageTotals => ({
  turns: totals.turns + turns,
  inputTokens: totals.inputTokens + usage.inputTokens,
  outputTokens: totals.outputTokens + usage.outputTokens,
  costUsd: addUsd(totals.costUsd, usage.costUsd ?? 0),
});

/** Limits of a session (or of a user's totals across sessions). */
export type Budget = z.output<typeof BudgetSchema>;

/** Per-session settings that actions change. Plain JSON. */
export interface SessionConfig {
  /** Model name override passed with every request. */
  model?: string | undefined;
  /** Replaces the agent's instructions for this session. */
  systemPrompt?: string | undefined;
  budget: Budget;
  metadata: Record<string, unknown>;
  /** App-defined description of what the session is working on. */
  task?: unknown;
}

/** What a finished run leaves in the session context. */
export type RunSummary = Omit<RunMachineOutput, 'newDecisions'>;

export interface SessionMachineContext {
  sessionId: string;
  userId?: string | undefined;
  parentId?: string | undefined;
  config: SessionConfig;
  /** History index the model starts reading from (moved by `clearSession`). */
  historyFrom: number;
  runCount: number;
  usage: UsageTotals;
  standingDecisions: Record<string, StandingDecision>;
  currentRun?: RunMachineInput | undefined;
  lastRun?: RunSummary | undefined;
  /** The latest message ids the session answered, each with its run (`RunOptions.messageId`). */
  answered?: AnsweredMessage[] | undefined;
}

export interface SessionMachineInput {
  sessionId: string;
  userId?: string | undefined;
  parentId?: string | undefined;
  config?: Partial<SessionConfig> | undefined;
  historyFrom?: number | undefined;
  usage?: UsageTotals | undefined;
  standingDecisions?: Record<string, StandingDecision> | undefined;
}

export type SessionEvent =
  | { type: 'SEND_MESSAGE'; run: RunMachineInput; messageId?: string | undefined }
  | { type: 'SUSPEND' }
  | { type: 'RESUME' }
  | { type: 'COMPLETE' }
  | { type: 'FAIL' }
  | { type: 'DELETE' }
  | { type: 'CLEAR'; historyFrom: number }
  | { type: 'CONFIGURE'; patch: Partial<SessionConfig> }
  // forwarded to the run (and on down to its sub-agent runs)
  | RunEvent;

export type SessionEventType = SessionEvent['type'];
