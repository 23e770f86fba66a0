/**
 * Agent paths: the names of the agents from a session's top-level one down to a sub-agent run's
 * own. A session's own run has none stored (its path is its agent).
 */

/** The agent path of a run: its `agentPath`, or just its agent for a top-level run. */
export const agentPathOf = (run: {
  agentName: string;
  agentPath?: string[] | undefined;
}): string[] => run.agentPath ?? [run.agentName];

/** Whether a step input or run belongs to a sub-agent run (not the session's own run). */
export const isSubRun = (path: readonly string[] | undefined): boolean =>
  path !== undefined && path.length > 1;
