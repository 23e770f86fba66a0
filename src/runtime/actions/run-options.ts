import type { ActionObservers } from '../session-action.js';

/** Options of an action that drives a run. */
export interface RunActionOptions extends ActionObservers {
  /** Overrides the agent's turn limit for this run. */
  maxTurns?: number | undefined;
  /** The session lives in a throwaway store: the RunState then carries the whole session. */
  ephemeral?: boolean | undefined;
}
