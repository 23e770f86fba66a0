import { Agent } from '../agent/agent.js';
import type { AgentOptions } from '../definition/agent-options.js';
import { InvalidDatasetError } from '../errors/eval-errors.js';
import { MemorySessionStore } from '../persistence/kv/memory-session-store.js';
import { exportReplay } from '../recovery/export-replay.js';
import type { EvalCandidate, EvalTools } from './eval-candidate.js';
import type { EvalOutcome, EvalRow } from './eval-row.js';
import { runOutcome } from './recorded-outcome.js';
import { trajectoryOf } from './trajectory.js';
import { scriptedTools } from './scripted-tools.js';

/** `agent` with the candidate's overrides (itself when there are none). */
export function candidateAgent(agent: Agent<unknown>, candidate: EvalCandidate): Agent<unknown> {
  return agentFor(agent, undefined, candidate, 'live');
}

/** The agent a `run` row is played with: the candidate's overrides, scripted or live tools. */
function agentFor(
  agent: Agent<unknown>,
  row: EvalRow | undefined,
  candidate: EvalCandidate,
  tools: EvalTools,
): Agent<unknown> {
  const { model, instructions, settings } = candidate;
  if (
    model === undefined &&
    instructions === undefined &&
    settings === undefined &&
    tools === 'live'
  )
    return agent;
  const options: AgentOptions<unknown> = { ...agent.options };
  if (model) options.model = model;
  if (instructions !== undefined) {
    const base = typeof options.instructions === 'string' ? options.instructions : undefined;
    options.instructions = typeof instructions === 'function' ? instructions(base) : instructions;
  }
  if (settings) options.modelSettings = { ...options.modelSettings, ...settings };
  if (tools === 'scripted') {
    if (!row?.replay) {
      throw new InvalidDatasetError({ rowId: row?.id }, "scripted tools need the row's replay");
    }
    options.tools = scriptedTools(options.tools ?? [], row.replay);
  }
  return new Agent(options);
}

/**
 * A `run` row through the whole agent, on a fresh memory store (never the app's): its input
 * messages sent in order, each approval answered by the row's next decision (a call that waits
 * with none left ends the run `awaitingApproval`). The outcome is read from the finished run.
 */
export async function evaluateRun(
  row: EvalRow,
  agent: Agent<unknown>,
  candidate: EvalCandidate,
  tools: EvalTools,
  signal: AbortSignal,
): Promise<EvalOutcome> {
  const played = agentFor(agent, row, candidate, tools);
  const store = new MemorySessionStore();
  const sessionId = `eval-${row.id}`;
  const options = { store, signal };
  const decisions = [...(row.decisions ?? [])];
  try {
    for (const message of row.input ?? []) {
      let result = await played.run([message], { sessionId, ...options });
      while (result.interrupted && result.interruptionReason === 'approval') {
        const waiting = result.interruptions[0];
        const decision = decisions.shift();
        if (!waiting || !decision) break;
        result =
          decision.decision === 'approve'
            ? await played.approve(sessionId, waiting.callId, { store })
            : await played.reject(sessionId, waiting.callId, {
                store,
                ...(decision.message === undefined ? {} : { message: decision.message }),
              });
      }
    }
    const replay = await exportReplay(played.runtimeFor(store), sessionId);
    const view = await played.runtimeFor(store).getSession(sessionId);
    const last = view.lastRun?.runId === replay.run.runId ? view.lastRun : undefined;
    return runOutcome(replay, last, trajectoryOf(replay));
  } finally {
    await store.close();
  }
}
