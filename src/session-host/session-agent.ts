import type { AgentDeps } from '../actors/agent-deps.js';
import type { SessionMachineContext } from '../machines/session-types.js';
import type { SessionAgentDeps } from './host-deps.js';

/**
 * The session's own agent as its steps see it: the bound agent, with the session's system
 * prompt and model name (`updateSession`) before the agent's.
 */
export class SessionAgent implements AgentDeps {
  constructor(
    private readonly host: { context(): SessionMachineContext },
    private readonly agent: SessionAgentDeps,
  ) {}
  get agentName() {
    return this.agent.agentName;
  }
  get model() {
    return this.agent.model;
  }
  get tools() {
    return this.agent.tools;
  }
  get toolSpecs() {
    return this.agent.toolSpecs;
  }
  instructions() {
    return this.host.context().config.systemPrompt ?? this.agent.instructions;
  }
  modelName() {
    return this.host.context().config.model;
  }
  get outputType() {
    return this.agent.outputType;
  }
  get outputSchema() {
    return this.agent.outputSchema;
  }
  get prices() {
    return this.agent.prices;
  }
  get approvalTimeoutMs() {
    return this.agent.approvalTimeoutMs;
  }
  get modelSettings() {
    return this.agent.modelSettings;
  }
  get inputGuardrails() {
    return this.agent.inputGuardrails;
  }
  get outputGuardrails() {
    return this.agent.outputGuardrails;
  }
  get redact() {
    return this.agent.redact;
  }
  get permissions() {
    return this.agent.permissions;
  }
  get definition() {
    return this.agent.definition;
  }
}
