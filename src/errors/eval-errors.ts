import { AgentStateError } from './agentstate-error.js';

/**
 * An eval dataset, or one of its rows, that cannot be used: a line that is not JSON or not a
 * row (`line`, 1-based), a row that does not fit the agent it is run against (a tool the agent
 * does not have, another agent's row: `rowId`), two rows with one id.
 */
export class InvalidDatasetError extends AgentStateError {
  /** The file's line (1-based), when the problem is in one. */
  readonly line: number | undefined;
  /** The row's id, when it has one. */
  readonly rowId: string | undefined;
  /** Where in the row the first problem is, e.g. `request.items.2` (empty: the whole row). */
  readonly path: string;
  constructor(
    where: { line?: number | undefined; rowId?: string | undefined; path?: string | undefined },
    reason: string,
  ) {
    const at = [
      where.line === undefined ? '' : `line ${where.line}`,
      where.rowId === undefined ? '' : `row "${where.rowId}"`,
      where.path ? `at ${where.path}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    super('INVALID_DATASET', `Invalid eval dataset${at ? ` (${at})` : ''}: ${reason}`);
    this.line = where.line;
    this.rowId = where.rowId;
    this.path = where.path ?? '';
  }
}

/** An eval report file that is not one (bad JSON, wrong shape, or a newer format version). */
export class InvalidEvalReportError extends AgentStateError {
  /** Where in the file the first problem is (empty: the whole file). */
  readonly path: string;
  constructor(path: string, reason: string) {
    super('INVALID_EVAL_REPORT', `Invalid eval report${path ? ` at ${path}` : ''}: ${reason}`);
    this.path = path;
  }
}

/**
 * An eval run resumed with another dataset, agent or scorers than it was started with: its
 * finished rows would be mixed with rows of another eval. Start it under a new id.
 */
export class EvalMismatchError extends AgentStateError {
  readonly evalId: string;
  constructor(evalId: string, what: string) {
    super('EVAL_MISMATCH', `Eval run "${evalId}" was started with ${what}: start a new eval id`);
    this.evalId = evalId;
  }
}
