import { AgentStateError } from './agentstate-error.js';

/**
 * A fork position past what the session's history can give: beyond its length, inside the
 * run that is paused (its items are not carried), or between a tool call and its result.
 */
export class ForkPositionError extends AgentStateError {
  readonly at: number;
  /** The furthest position a fork of this session may take now. */
  readonly limit: number;
  constructor(sessionId: string, at: number, limit: number, why: string) {
    super('FORK_POSITION_OUT_OF_RANGE', `Cannot fork session "${sessionId}" at ${at}: ${why}`, {
      sessionId,
    });
    this.at = at;
    this.limit = limit;
  }
}

/** A replay file that is not one (bad JSON, wrong shape, or a newer format version). */
export class InvalidReplayError extends AgentStateError {
  /** Where in the file the first problem is, e.g. `runs.0.modelCalls.1.toolCalls`. */
  readonly path: string;
  constructor(path: string, reason: string) {
    super('INVALID_REPLAY', `Invalid replay file${path ? ` at ${path}` : ''}: ${reason}`);
    this.path = path;
  }
}

/** The session holds no run with this id (or no run at all) to export. */
export class RunNotFoundError extends AgentStateError {
  constructor(sessionId: string, runId: string | undefined) {
    super(
      'RUN_NOT_FOUND',
      runId === undefined
        ? `Session "${sessionId}" has no run yet`
        : `Session "${sessionId}" has no run "${runId}" (only its last or current run is kept)`,
      { sessionId, runId },
    );
  }
}
