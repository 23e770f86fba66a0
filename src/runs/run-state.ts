import { z } from 'zod';
import { InvalidRunStateError, UnknownCallError } from '../errors/run-errors.js';
import type { GuardrailResult } from '../errors/guardrail-errors.js';
import { Item } from '../items/item.js';
import {
  GuardrailResultSchema,
  InterruptionReason,
  RunUsage,
  SerializedError,
} from '../machines/schemas/run-schemas.js';

/** Current RunState schema version; `fromJSON` refuses newer ones. */
export const RUN_STATE_SCHEMA_VERSION = 1;

/** The run's usage, checked as a stored run's is (token counts, non-negative costs). */
const Usage = RunUsage;

const Interruption = z.lazy(() =>
  z.object({
    callId: z.string(),
    toolName: z.string(),
    arguments: z.unknown(),
    agent: z.string(),
    /** The run that waits: the session's run or one of its sub-agent runs. */
    runId: z.string().optional(),
    /** A sub-agent's call: the agents from the top-level one down to the one that asked. */
    agentPath: z.array(z.string()).optional(),
    deadline: z.number().optional(),
    /** `callFingerprint` of the call (absent in RunStates of agentstate 0.1). */
    fingerprint: z.string().optional(),
  }),
);

const Decision = z.lazy(() =>
  z.object({
    callId: z.string(),
    approve: z.boolean(),
    always: z.boolean().optional(),
    message: z.string().optional(),
    /** The run the decision was made on (absent in RunStates of agentstate 0.1). */
    runId: z.string().optional(),
    /** The fingerprint of the call it was made on, when the RunState had one. */
    fingerprint: z.string().optional(),
    /** Who decided (written to the audit log). */
    by: z.string().optional(),
    /** Through which path: the API, the inspector page or the command line. @default 'api' */
    via: z.enum(['api', 'page', 'cli']).optional(),
  }),
);

const RunStateData = z.lazy(() =>
  z.object({
    schemaVersion: z.number().int(),
    runId: z.string(),
    sessionId: z.string(),
    userId: z.string().optional(),
    agentName: z.string(),
    status: z.enum(['completed', 'interrupted', 'failed', 'cancelled', 'running']),
    interruptionReason: InterruptionReason.optional(),
    /** Why the run's model call failed (interruption `error`). */
    error: SerializedError.optional(),
    turn: z.number().int(),
    maxTurns: z.number().int(),
    usage: Usage,
    startedAt: z.number(),
    historyStart: z.number().int(),
    inputCount: z.number().int(),
    items: z.array(Item),
    interruptions: z.array(Interruption),
    decisions: z.array(Decision),
    /** Every guardrail result of the run (absent: none ran). */
    guardrails: z.array(GuardrailResultSchema).optional(),
    /** For runs without a durable store: the whole session, so resume can restore it anywhere. */
    session: z
      .object({ record: z.record(z.string(), z.unknown()), items: z.array(Item) })
      .optional(),
  }),
);

export type RunStateData = z.infer<typeof RunStateData>;
export type Interruption = z.infer<typeof Interruption>;
export type ApprovalDecision = z.infer<typeof Decision>;

/** The facts of a run a RunState is built from: its machine context or its stored summary. */
export type RunStateRun = Pick<
  RunStateData,
  | 'runId'
  | 'agentName'
  | 'turn'
  | 'maxTurns'
  | 'usage'
  | 'startedAt'
  | 'historyStart'
  | 'inputCount'
>;

/** Where a run stands, for its RunState: status, why it stopped, its history, pending calls. */
export interface RunStateOutcome<I> {
  status: RunStateData['status'];
  interruptionReason?: RunStateData['interruptionReason'];
  error?: RunStateData['error'];
  items: RunStateData['items'];
  interruptions: I[];
  guardrails?: RunStateData['guardrails'];
  session?: RunStateData['session'];
}

/**
 * The one assembly of a RunState's data (the run's result and the inspector's run detail both
 * build theirs here), fields in schema order, absent ones left out, no decisions yet.
 */
export function runStateData<R extends RunStateRun, I = Interruption>(
  key: { sessionId: string; userId?: string | undefined },
  run: R,
  outcome: RunStateOutcome<I>,
): Omit<RunStateData, 'interruptions'> & { interruptions: I[] } {
  return {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    runId: run.runId,
    sessionId: key.sessionId,
    ...(key.userId === undefined ? {} : { userId: key.userId }),
    agentName: run.agentName,
    status: outcome.status,
    ...(outcome.interruptionReason ? { interruptionReason: outcome.interruptionReason } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    turn: run.turn,
    maxTurns: run.maxTurns,
    usage: run.usage,
    startedAt: run.startedAt,
    historyStart: run.historyStart,
    inputCount: run.inputCount,
    items: outcome.items,
    interruptions: outcome.interruptions,
    decisions: [],
    ...(outcome.guardrails?.length ? { guardrails: outcome.guardrails } : {}),
    ...(outcome.session ? { session: outcome.session } : {}),
  };
}

/** Decisions read back from a store (plain JSON), checked; a `ZodError` if they do not fit. */
export function parseDecisions(value: unknown): ApprovalDecision[] {
  return z.array(Decision).parse(value);
}

/**
 * The serialisable snapshot of a run: where it stands, its usage, its pending approvals and
 * its history (readable without running anything). Approve or reject pending calls here, then
 * pass it to `agent.resume(state)`.
 */
export class RunState {
  readonly data: RunStateData;

  constructor(data: RunStateData) {
    this.data = data;
  }

  get runId(): string {
    return this.data.runId;
  }
  get sessionId(): string {
    return this.data.sessionId;
  }
  get userId(): string | undefined {
    return this.data.userId;
  }
  /** The run's conversation: its input and everything generated since. */
  get history(): Item[] {
    return this.data.items;
  }
  get interruptions(): Interruption[] {
    return this.data.interruptions;
  }
  get usage(): RunStateData['usage'] {
    return this.data.usage;
  }
  get decisions(): ApprovalDecision[] {
    return this.data.decisions;
  }
  /** The run's guardrail results (input and output), in the order they ran. */
  get guardrails(): GuardrailResult[] {
    return this.data.guardrails ?? [];
  }

  /**
   * Approves a pending call; `always` approves this tool (of the agent that asked) for the
   * rest of the session. `runId` picks the call when two runs (sub-agents) wait with one id.
   */
  approve(
    callId: string,
    options: { always?: boolean; runId?: string; by?: string; via?: 'api' | 'page' | 'cli' } = {},
  ): this {
    return this.decide({ callId, approve: true, ...options });
  }

  /** Rejects a pending call; the model is shown `message`. */
  reject(
    callId: string,
    options: {
      message?: string;
      always?: boolean;
      runId?: string;
      by?: string;
      via?: 'api' | 'page' | 'cli';
    } = {},
  ): this {
    return this.decide({ callId, approve: false, ...options });
  }

  toJSON(): RunStateData {
    return this.data;
  }

  toString(): string {
    return JSON.stringify(this.data);
  }

  /** Reads a RunState from JSON text or a parsed object; validates it and its schema version. */
  static fromJSON(json: unknown): RunState {
    let raw: unknown = json;
    if (typeof json === 'string') {
      try {
        raw = JSON.parse(json);
      } catch (error) {
        throw new InvalidRunStateError(`RunState is not valid JSON: ${(error as Error).message}`);
      }
    }
    const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
    if (typeof version === 'number' && version > RUN_STATE_SCHEMA_VERSION) {
      throw new InvalidRunStateError(
        `RunState has schema version ${version}; this version of agentstate reads up to ${RUN_STATE_SCHEMA_VERSION}`,
      );
    }
    const parsed = RunStateData.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ');
      throw new InvalidRunStateError(`RunState is invalid: ${issues}`);
    }
    return new RunState(parsed.data);
  }

  /**
   * The decisions to apply, each naming the run it was made on (decisions of older RunStates
   * did not store it: they were made on this one).
   */
  decisionsToApply(): ApprovalDecision[] {
    return this.data.decisions.map((d) => ({ runId: this.runId, ...d }));
  }

  private decide(decision: ApprovalDecision): this {
    const scope = { sessionId: this.sessionId, runId: this.runId };
    const calls = this.data.interruptions.filter(
      (i) =>
        i.callId === decision.callId &&
        (decision.runId === undefined || (i.runId ?? this.runId) === decision.runId),
    );
    const call = calls[0];
    if (!call) throw new UnknownCallError(decision.callId, scope);
    if (calls.length > 1) {
      throw new TypeError(
        `RunState: calls of runs ${calls.map((c) => c.runId).join(' and ')} wait with id "${decision.callId}": pass { runId } to pick one`,
      );
    }
    const made = {
      ...decision,
      runId: call.runId ?? this.runId,
      ...(call.fingerprint === undefined ? {} : { fingerprint: call.fingerprint }),
    };
    this.data.decisions = this.data.decisions
      .filter((d) => d.callId !== made.callId || d.runId !== made.runId)
      .concat(made);
    return this;
  }
}
