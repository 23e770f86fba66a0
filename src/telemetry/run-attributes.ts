import type { Attributes } from '@opentelemetry/api';
import type { RunContext } from '../core/run-context.js';
import type { TraceCarrier } from '../machines/run-types.js';
import { AGENTSTATE, GEN_AI, OPERATION } from './gen-ai-attributes.js';

/** A run as the observer sees it. */
export interface ObservedRun {
  runId: string;
  agentName: string;
  agentPath?: string[] | undefined;
  /** The trace context stored with the run (a resumed run continues it). */
  trace?: TraceCarrier | undefined;
}

/** How a run's stay in this process ended: it finished, or it paused (or was left in flight). */
export interface RunEnding {
  status: string;
  interruption?: string | undefined;
  turn: number;
  usage: { inputTokens: number; outputTokens: number; costUsd?: number | undefined };
  error?: { code: string; message: string } | undefined;
  guardrails?: { name: string; tripwire: boolean }[] | undefined;
}

/** How a run came to start in this process. */
export interface RunStart {
  /** A sub-agent run's parent (its span nests in the parent's). */
  parentRunId?: string | undefined;
  /** Restored from the store (a resume, or another process's run), not started anew. */
  restored?: boolean;
  /** Restored with steps that were in flight when it was saved (they run again). */
  restarted?: boolean;
}

/** The run's scope on every span: conversation (session), user and run. */
export function scopeAttributes(ctx: RunContext): Attributes {
  return {
    ...(ctx.sessionId === undefined ? {} : { [GEN_AI.conversationId]: ctx.sessionId }),
    ...(ctx.userId === undefined ? {} : { [AGENTSTATE.userId]: ctx.userId }),
    [AGENTSTATE.runId]: ctx.runId,
  };
}

/** An `invoke_agent` span's attributes when the run starts (`version`: the session's). */
export function runAttributes(
  run: ObservedRun,
  how: RunStart,
  ctx: RunContext,
  version: number,
): Attributes {
  return {
    [GEN_AI.operationName]: OPERATION.invokeAgent,
    [GEN_AI.agentName]: run.agentName,
    ...scopeAttributes(ctx),
    ...(run.agentPath ? { [AGENTSTATE.agentPath]: run.agentPath } : {}),
    ...(how.parentRunId ? { [AGENTSTATE.parentRunId]: how.parentRunId } : {}),
    [AGENTSTATE.sessionVersion]: version,
    ...(how.restored ? { [AGENTSTATE.resumed]: true } : {}),
    ...(how.restarted ? { [AGENTSTATE.restarted]: true } : {}),
  };
}

/** What the run's span records when its stay here ends: status, turns, usage, guardrails. */
export function runEndAttributes(ending: RunEnding): Attributes {
  return {
    [AGENTSTATE.runStatus]: ending.status,
    [AGENTSTATE.turns]: ending.turn,
    [GEN_AI.inputTokens]: ending.usage.inputTokens,
    [GEN_AI.outputTokens]: ending.usage.outputTokens,
    ...(ending.usage.costUsd === undefined ? {} : { [AGENTSTATE.costUsd]: ending.usage.costUsd }),
    ...(ending.interruption ? { [AGENTSTATE.interruption]: ending.interruption } : {}),
    ...guardrailAttributes(ending.guardrails),
  };
}

function guardrailAttributes(results: RunEnding['guardrails']): Attributes {
  if (!results?.length) return {};
  return {
    [AGENTSTATE.guardrails]: results.map((r) => r.name),
    [AGENTSTATE.guardrailTripped]: results.filter((r) => r.tripwire).map((r) => r.name),
  };
}
