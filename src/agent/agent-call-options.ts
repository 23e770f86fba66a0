import type { ModelSettings } from '../models/model-settings.js';
import type { SessionStore } from '../persistence/session-store.js';
import type { ApprovalSchedulerOptions } from '../approvals/approval-scheduler-options.js';
import type { Durability } from '../core/durability-policy.js';
import type { WhileBusy } from '../core/busy-policy.js';

/** Options of one `run` / `stream` call. */
export interface RunOptions {
  /** Continue this conversation (created if new). Omitted: a fresh in-memory conversation. */
  sessionId?: string | undefined;
  /** The hard partition key: sessions of one user are invisible to every other. */
  userId?: string | undefined;
  /** App metadata, readable by tools through `getRunContext().metadata`. */
  metadata?: Record<string, unknown> | undefined;
  /** Overrides the agent's store for this call. */
  store?: SessionStore | undefined;
  /** Cancels in-flight model and tool calls; the run ends `cancelled`. */
  signal?: AbortSignal | undefined;
  /** Overrides the agent's turn limit. */
  maxTurns?: number | undefined;
  /**
   * Model settings of this run, merged over the agent's `modelSettings` key by key and stored
   * with the run: a resume uses them too.
   */
  modelSettings?: ModelSettings | undefined;
  /**
   * When this run's changes are saved (see `AgentOptions.durability`); wins over the runtime's
   * and the agent's for this call.
   * @default the runtime's, else the agent's, else 'step'
   */
  durability?: Durability | undefined;
  /**
   * What this message does when this process is executing the session's run (see
   * `AgentOptions.whileBusy`); wins over the agent's.
   * @default the agent's, else 'reject'
   */
  whileBusy?: WhileBusy | undefined;
  /**
   * The message's own id (a chat client's message id): a session answers an id once. The same
   * id sent again, while its run executes or after, is `MessageAnsweredError` naming that run,
   * and runs nothing. The session keeps its latest 64 ids. At most 256 characters.
   */
  messageId?: string | undefined;
}

/** Options of `resume` (a resumed run keeps the model settings it started with). */
export type ResumeOptions = Omit<
  RunOptions,
  'sessionId' | 'modelSettings' | 'whileBusy' | 'messageId'
>;

/** Options of `agent.approve`: the resume's, and how the call is decided. */
export interface ApproveOptions extends ResumeOptions {
  /** The same decision for every later call of this tool in the session. @default false */
  always?: boolean | undefined;
  /**
   * The run that waits (the session's run or one of its sub-agent runs). Omitted: the one
   * holding the call.
   */
  runId?: string | undefined;
  /** Who decided, for the audit log. */
  by?: string | undefined;
}

/** Options of `agent.reject`: `approve`'s, and what the model is told. */
export interface RejectOptions extends ApproveOptions {
  /** What the model reads instead of the tool's result. */
  message?: string | undefined;
}

/** Options of `agent.resolveInDoubt`: the resume's, and who resolved the call. */
export interface ResolveInDoubtOptions extends ResumeOptions {
  /** Who resolved the call, for the audit log. */
  by?: string | undefined;
}

/** One decision of `agent.streamDecide`: the call, approved or not, what the model reads. */
export interface StreamDecision {
  callId: string;
  approve: boolean;
  /** With `approve: false`: what the model reads instead of the tool's result. */
  message?: string | undefined;
}

/** Options of `agent.startScheduler`: the scheduler's, and the store to watch. */
export interface StartSchedulerOptions extends ApprovalSchedulerOptions {
  /** @default the agent's store */
  store?: SessionStore | undefined;
}

/** Options of `cancel`. */
export interface CancelOptions extends Pick<RunOptions, 'userId' | 'store'> {
  /** Who cancelled, for the audit log. */
  by?: string | undefined;
}
