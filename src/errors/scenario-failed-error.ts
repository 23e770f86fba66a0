import { AgentStateError } from './agentstate-error.js';

/**
 * The reference run of a crash exploration's scenario failed before any crash: the scenario
 * does not fit the agent (a decision for a call that never waits, a model without an answer).
 */
export class ScenarioFailedError extends AgentStateError {
  readonly scenario: string;
  constructor(scenario: string, reason: string) {
    super('SCENARIO_FAILED', `Scenario "${scenario}" failed without a crash: ${reason}`);
    this.scenario = scenario;
  }
}
