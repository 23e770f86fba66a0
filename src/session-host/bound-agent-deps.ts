import type { AgentDeps } from '../actors/agent-deps.js';
import type { AgentBinding } from '../definition/agent-binding.js';
import type { AgentOptions } from '../definition/agent-options.js';

/** What the steps read of a bound agent alike for the session's own agent and a sub-agent. */
export type BoundAgentDeps = Omit<
  AgentDeps,
  'instructions' | 'modelName' | 'modelSettings' | 'definition'
>;

/**
 * The one place an agent's options and binding become what its run's steps read (`AgentDeps`):
 * the session's own agent (`hostDeps`) and each sub-agent (`SubAgents`) start from it, so an
 * agent option a step reads is handed over here once.
 */
export function boundAgentDeps(
  options: AgentOptions<unknown>,
  binding: Pick<AgentBinding, 'tools' | 'toolSpecs' | 'outputSchema'>,
): BoundAgentDeps {
  return {
    agentName: options.name,
    model: options.model,
    tools: binding.tools,
    toolSpecs: binding.toolSpecs,
    outputType: options.outputType,
    outputSchema: binding.outputSchema,
    prices: options.prices,
    approvalTimeoutMs: options.approvalTimeoutMs,
    inputGuardrails: options.inputGuardrails,
    outputGuardrails: options.outputGuardrails,
    redact: options.redact,
    permissions: options.permissions,
  };
}
