import { AgentStateError, type ErrorScope } from './agentstate-error.js';

/**
 * The run used up its turn limit. `state` (a RunState) resumes it, e.g. with a higher
 * `maxTurns`: `agent.resume(error.state, { maxTurns: 20 })`.
 */
export class MaxTurnsExceededError<TState = unknown> extends AgentStateError {
  readonly maxTurns: number;
  readonly state: TState | undefined;
  constructor(maxTurns: number, state?: TState, scope: ErrorScope = {}) {
    super('MAX_TURNS_EXCEEDED', `The run reached its limit of ${maxTurns} turn(s)`, scope);
    this.maxTurns = maxTurns;
    this.state = state;
  }
}
