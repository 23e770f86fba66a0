import { AgentStateError, causeText, type ErrorScope } from './agentstate-error.js';

/** No session with this id exists for this user (another user's session looks the same). */
export class SessionNotFoundError extends AgentStateError {
  constructor(sessionId: string) {
    super('SESSION_NOT_FOUND', `Session "${sessionId}" was not found`, { sessionId });
  }
}

/** The stored version moved on since the caller loaded the session (optimistic check). */
export class SessionConflictError extends AgentStateError {
  readonly expectedVersion: number;
  readonly actualVersion: number | undefined;
  constructor(
    sessionId: string,
    expectedVersion: number,
    actualVersion: number | undefined,
    /** The stored session is a tombstone (status `deleted`): no write may revive it. */
    deleted = false,
  ) {
    super(
      'SESSION_CONFLICT',
      actualVersion === undefined
        ? `Session "${sessionId}" already exists`
        : deleted
          ? `Session "${sessionId}" was deleted (tombstone at version ${actualVersion}); the write is refused`
          : `Session "${sessionId}" is at version ${actualVersion}, not ${expectedVersion}`,
      { sessionId },
    );
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/** The action is not allowed in the session's current state; nothing was saved. */
export class InvalidSessionTransitionError extends AgentStateError {
  readonly action: string;
  readonly state: string;
  constructor(sessionId: string, action: string, state: string) {
    super(
      'INVALID_SESSION_TRANSITION',
      `Action "${action}" is not allowed while session "${sessionId}" is ${state}`,
      { sessionId },
    );
    this.action = action;
    this.state = state;
  }
}

/**
 * A stored value failed its integrity or schema check, or one is missing. Names the key (and
 * the field, when one is to blame); nothing was overwritten.
 */
export class InvalidSessionRecordError extends AgentStateError {
  readonly key: string;
  /** Dotted path of the offending field inside the value, when the value was readable. */
  readonly field: string | undefined;
  constructor(key: string, reason: string, scope: ErrorScope & { field?: string } = {}) {
    super(
      'INVALID_SESSION_RECORD',
      `Stored record "${key}" is invalid${scope.field ? ` at "${scope.field}"` : ''}: ${reason}`,
      scope,
    );
    this.key = key;
    this.field = scope.field;
  }
}

/** A stored record was written by a newer version of agentstate. */
export class UnsupportedSchemaVersionError extends AgentStateError {
  readonly key: string;
  readonly found: number;
  readonly supported: number;
  constructor(key: string, found: number, supported: number, scope: ErrorScope = {}) {
    super(
      'UNSUPPORTED_SCHEMA_VERSION',
      `Record "${key}" has schema version ${found}; this version of agentstate reads up to ${supported}`,
      scope,
    );
    this.key = key;
    this.found = found;
    this.supported = supported;
  }
}

/**
 * Writing a session failed; the batch was not applied. `unreachable` when the store could not
 * be reached (a shared database down or restarting): the same save may succeed once it is back.
 */
export class SessionSaveFailedError extends AgentStateError {
  readonly unreachable: boolean;
  constructor(sessionId: string, cause: unknown, options: { unreachable?: boolean } = {}) {
    super('SESSION_SAVE_FAILED', `Saving session "${sessionId}" failed: ${String(cause)}`, {
      sessionId,
      cause,
    });
    this.unreachable = options.unreachable ?? false;
  }
}

/** `resume` was called on a session with no interrupted or crashed run. */
export class NothingToResumeError extends AgentStateError {
  constructor(sessionId: string, state: string) {
    super(
      'NOTHING_TO_RESUME',
      `Session "${sessionId}" has no interrupted or in-flight run to resume (it is ${state})`,
      { sessionId },
    );
  }
}

/**
 * An agent was asked to continue a run another agent runs (a resume, an approval, a deadline):
 * only the agent that started the run has its tools, sub-agents and model. Nothing was loaded,
 * run or saved.
 */
export class WrongAgentError extends AgentStateError {
  /** The agent that runs the session's run. */
  readonly runAgent: string;
  /** The agent that was asked to continue it. */
  readonly agent: string;

  constructor(sessionId: string, runAgent: string, agent: string, runId?: string) {
    super(
      'WRONG_AGENT',
      `Session "${sessionId}"'s run is run by agent "${runAgent}", not "${agent}": continue it with agent "${runAgent}"`,
      { sessionId, runId },
    );
    this.runAgent = runAgent;
    this.agent = agent;
  }
}

/** One part of a run's definition that is not what it was (see `DefinitionFingerprint`). */
export interface DefinitionPartChange {
  /** `instructions`, `tool:refund.parameters`, `tool:lookup` (a tool added or removed), ... */
  part: string;
  change: 'changed' | 'added' | 'removed';
}

/**
 * A paused or crashed run (a session's own or a sub-agent's) was to be continued by an agent
 * defined differently from the one that started it, and the agent does not declare the
 * change compatible (`AgentOptions.compatibleWith`). Nothing was loaded, run or saved.
 */
export class DefinitionChangedError extends AgentStateError {
  /** The parts that differ: `instructions`, `tool:refund.parameters`, `model`, ... */
  readonly changed: string[];
  readonly changes: DefinitionPartChange[];
  /** The run's agents, the top-level one first (a sub-agent's run: down to its own). */
  readonly agentPath: string[];

  constructor(
    sessionId: string,
    runId: string,
    agentPath: readonly string[],
    changes: readonly DefinitionPartChange[],
  ) {
    const listed = changes
      .map((c) => (c.change === 'changed' ? c.part : `${c.part} (${c.change})`))
      .join(', ');
    const agent = agentPath.join(' > ');
    super(
      'DEFINITION_CHANGED',
      `Session "${sessionId}"'s run was started by another definition of agent "${agent}" (changed: ${listed}): resume it with the definition it started with, or declare the change compatible (compatibleWith)`,
      { sessionId, runId },
    );
    this.changes = [...changes];
    this.changed = changes.map((c) => c.part);
    this.agentPath = [...agentPath];
  }
}

/**
 * The session's run is paused (interrupted, waiting for an approval, or stopped by a crash):
 * the session takes no message (and no other action its run blocks) until the run is resumed
 * (`agent.resume`, `continueRun`) or cancelled (`agent.cancel`, `cancelRun`). Nothing was saved.
 */
export class RunPausedError extends AgentStateError {
  readonly action: string;
  /** Why the run stands still: an interruption reason, `approval`, or `crash`. */
  readonly reason: string;
  constructor(sessionId: string, action: string, reason: string, runId?: string) {
    super(
      'RUN_PAUSED',
      `Action "${action}" is not possible while the run of session "${sessionId}" is paused ` +
        `(${reason}): resume the run (agent.resume / continueRun) or cancel it ` +
        '(agent.cancel / cancelRun) first',
      { sessionId, runId },
    );
    this.action = action;
    this.reason = reason;
  }
}

/**
 * This process is already executing a run of the session (a `run`, `resume` or `cancel` that
 * has not returned yet): a second one would run the same steps twice. Raised before anything
 * is loaded or called. Wait for the first call, or cancel it through its AbortSignal.
 */
export class RunInProgressError extends AgentStateError {
  readonly action: string;
  /** Another owner (another process) holds the session's lease, rather than this process. */
  readonly elsewhere: boolean;
  constructor(sessionId: string, action: string, elsewhere = false) {
    super(
      'RUN_IN_PROGRESS',
      elsewhere
        ? `Action "${action}" was refused: another owner holds the lease of session ` +
            `"${sessionId}" and is running it; retry after it returns or its lease expires`
        : `Action "${action}" was refused: this process is already executing a run of session ` +
            `"${sessionId}"; wait for it to return, or cancel it through its AbortSignal`,
      { sessionId },
    );
    this.action = action;
    this.elsewhere = elsewhere;
  }
}

/**
 * Fencing: the writer's lease on the session was taken over by another owner (it expired while
 * this owner was paused or cut off), so its write was refused and nothing was stored.
 */
export class LeaseLostError extends AgentStateError {
  readonly owner: string;
  constructor(sessionId: string, owner: string) {
    super(
      'LEASE_LOST',
      `Session "${sessionId}": owner "${owner}" lost its lease (another owner took it over); ` +
        'the write was refused',
      { sessionId },
    );
    this.owner = owner;
  }
}

/** A restored snapshot did not come back as a running actor. */
export class RestoreFailedError extends AgentStateError {
  constructor(sessionId: string, reason: string) {
    super('RESTORE_FAILED', `Session "${sessionId}" could not be restored: ${reason}`, {
      sessionId,
    });
  }
}

/** The LevelDB folder is held by another process (or another open store in this one). */
export class StoreLockedError extends AgentStateError {
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super(
      'STORE_LOCKED',
      `The LevelDB folder "${path}" is locked: one process at a time may open a LevelDB folder. ` +
        'Close the other store or process, or give this one its own folder.',
      { cause },
    );
    this.path = path;
  }
}

/** The LevelDB folder could not be opened (a missing permission, a damaged database, ...). */
export class StoreOpenFailedError extends AgentStateError {
  readonly path: string;
  constructor(path: string, cause: unknown) {
    super(
      'STORE_OPEN_FAILED',
      `The LevelDB folder "${path}" could not be opened: ${causeText(cause)}`,
      {
        cause,
      },
    );
    this.path = path;
  }
}

/**
 * The shared database could not be reached or failed the query (connection refused or lost,
 * server restarting, timeout). Nothing is known to be written by a read, a lease call or a
 * create that raised it; retry once the database is back.
 */
export class StoreUnavailableError extends AgentStateError {
  readonly operation: string;
  constructor(operation: string, cause: unknown, scope: ErrorScope = {}) {
    super('STORE_UNAVAILABLE', `The session store could not ${operation}: ${causeText(cause)}`, {
      ...scope,
      cause,
    });
    this.operation = operation;
  }
}
