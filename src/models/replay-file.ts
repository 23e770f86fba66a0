import { z } from 'zod';
import { InvalidReplayError } from '../errors/replay-errors.js';
import { Item } from '../items/item.js';

/** The `format` tag of every replay file. */
export const REPLAY_FORMAT = 'agentstate-replay';
/** The replay format version this agentstate writes and reads. */
export const REPLAY_VERSION = 1;

const count = z.number().int().nonnegative();

const ReplayUsage = z.lazy(() =>
  z.object({
    inputTokens: count,
    outputTokens: count,
    cachedTokens: count,
    reasoningTokens: count.optional(),
    costUsd: z.number().nonnegative().optional(),
  }),
);

/** One model answer, as the journal kept it. */
const ReplayModelCall = z.lazy(() =>
  z.object({
    step: count,
    /** Epoch ms the answer was journaled. */
    at: count,
    /** The agent whose model answered (the run's agent, or the one it was handed off to). */
    agent: z.string().min(1),
    text: z.string().optional(),
    toolCalls: z.array(
      z.object({
        callId: z.string().min(1),
        name: z.string().min(1),
        arguments: z.string(),
        /** Set when the call started a sub-agent run: its run id. */
        subRunId: z.string().optional(),
        /** Set when the call handed the run off: the agent that took over. */
        handoff: z.string().optional(),
      }),
    ),
    usage: ReplayUsage,
  }),
);

/** One tool call's result, as the journal kept it. */
const ReplayToolResult = z.lazy(() =>
  z.object({
    step: count,
    at: count,
    callId: z.string().min(1),
    name: z.string().optional(),
    output: z.string().optional(),
    isError: z.boolean(),
    /** Set when the call did not run: a human, a deadline or a permission policy rejected it. */
    rejected: z.literal(true).optional(),
  }),
);

/** One approval check: which calls waited for a human. */
const ReplayApproval = z.lazy(() =>
  z.object({
    step: count,
    at: count,
    calls: z.array(z.object({ callId: z.string(), needsApproval: z.boolean() })),
  }),
);

/** The exported run or one of its sub-agent runs. */
const ReplayRun = z.lazy(() =>
  z.object({
    runId: z.string().min(1),
    /** Agent names from the exported run's agent down to this run's. */
    agentPath: z.array(z.string().min(1)).min(1),
    /** A sub-agent run's input message (the exported run's input is `run.input`). */
    input: z.string().optional(),
    modelCalls: z.array(ReplayModelCall),
    toolResults: z.array(ReplayToolResult),
    approvals: z.array(ReplayApproval),
  }),
);

/** A replay file: one run of a session, enough to run it again offline. Plain JSON. */
export const ReplayFile = z.lazy(() =>
  z.object({
    format: z.literal(REPLAY_FORMAT),
    version: z.literal(REPLAY_VERSION),
    /** Epoch ms. */
    exportedAt: count,
    versions: z.object({ agentstate: z.string(), machine: z.string(), schema: count }),
    session: z.object({ sessionId: z.string().min(1), userId: z.string().optional() }),
    run: z.object({
      runId: z.string().min(1),
      agentName: z.string().min(1),
      /** `completed`, `failed`, `cancelled`, or the paused run's state (`awaitingApproval`, ...). */
      status: z.string().min(1),
      startedAt: count,
      /** Epoch ms of the run's last journaled step. */
      lastStepAt: count.optional(),
      turns: count,
      usage: ReplayUsage,
      output: z.string().optional(),
      /** The run's input items, as the session history holds them. */
      input: z.array(Item),
    }),
    /** The run first, then its sub-agent runs (depth first, in the order of their calls). */
    runs: z.array(ReplayRun).min(1),
  }),
);

export type ReplayFile = z.infer<typeof ReplayFile>;
export type ReplayRun = z.infer<typeof ReplayRun>;
export type ReplayModelCall = z.infer<typeof ReplayModelCall>;

/**
 * Checks a replay file: a JSON text or the parsed value.
 * @throws InvalidReplayError naming the first problem (bad JSON, a missing or mistyped field,
 *   another format or a newer version).
 */
export function parseReplay(input: unknown): ReplayFile {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new InvalidReplayError('', `not JSON (${(error as Error).message})`);
    }
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > REPLAY_VERSION) {
    throw new InvalidReplayError(
      'version',
      `format version ${version} is newer than this agentstate reads (${REPLAY_VERSION})`,
    );
  }
  const parsed = ReplayFile.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InvalidReplayError(issue.path.join('.'), issue.message);
}

/**
 * The answers `agent`'s model gave in a replay, in order: those of the exported run and then
 * of its sub-agent runs (depth first, in call order).
 */
export function replayAnswers(replay: ReplayFile, agent: string): ReplayModelCall[] {
  return replay.runs.flatMap((run) => run.modelCalls.filter((call) => call.agent === agent));
}
