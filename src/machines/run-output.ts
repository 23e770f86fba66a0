import type { RunMachineContext, RunMachineOutput } from './run-types.js';

/** What a finished run reports to its parent (the session, or the run of a sub-agent call). */
export const runOutput = (context: RunMachineContext): RunMachineOutput => ({
  status: context.outcome ?? 'failed',
  runId: context.runId,
  agentName: context.agentName,
  maxTurns: context.maxTurns,
  turn: context.turn,
  usage: context.usage,
  output: context.output,
  structured: context.structured,
  error: context.error,
  newDecisions: context.newDecisions,
  historyStart: context.historyStart,
  inputCount: context.inputCount,
  startedAt: context.startedAt,
  ...(context.agentPath ? { agentPath: context.agentPath } : {}),
  ...(context.subRuns ? { subRuns: context.subRuns } : {}),
  ...(context.activeAgent === undefined ? {} : { activeAgent: context.activeAgent }),
  ...(context.guardrails ? { guardrails: context.guardrails } : {}),
});
