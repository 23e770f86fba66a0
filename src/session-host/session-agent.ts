import type { AgentDeps } from '../actors/agent-deps.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type { SessionAgentDeps } from './host-deps.js';

/**
 * The session's own agent as its steps see it: the bound agent, with the session's system
 * prompt and model name (`updateSession`) before the agent's. A view that inherits the bound
 * agent (nothing copied per action, and a field `AgentDeps` gains later reads through without
 * being listed here); only the two the session may override are its own.
 */
export function sessionAgent(
  host: { context(): SessionMachineContext },
  agent: SessionAgentDeps,
): AgentDeps {
  return Object.create(agent, {
    instructions: { value: () => host.context().config.systemPrompt ?? agent.instructions },
    modelName: { value: () => host.context().config.model },
  }) as AgentDeps;
}
