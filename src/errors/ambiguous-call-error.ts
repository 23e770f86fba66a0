import { AgentStateError, type ErrorScope } from './agentstate-error.js';

/**
 * A decision names its call by id alone, and several paused runs of the session's run tree
 * (sub-agents called in parallel) wait on a call with that id: it names the run too
 * (`ApprovalDecision.runId`, the command line's `--run`). `.runIds` lists them. Nothing was
 * applied.
 */
export class AmbiguousCallError extends AgentStateError {
  readonly callId: string;
  readonly runIds: readonly string[];

  constructor(
    callId: string,
    runs: readonly { runId: string; agentPath: readonly string[] }[],
    scope: ErrorScope = {},
  ) {
    super(
      'AMBIGUOUS_CALL',
      `Tool call "${callId}" waits in ${runs.length} runs (${runs
        .map((r) => `${r.runId} of ${r.agentPath.join(' > ')}`)
        .join(', ')}): name the run the decision is for (runId, or --run on the command line)`,
      scope,
    );
    this.callId = callId;
    this.runIds = runs.map((r) => r.runId);
  }
}
