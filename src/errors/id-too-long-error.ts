import { AgentStateError, type ErrorScope } from './agentstate-error.js';

/**
 * An id (a session id, user id, run id, ...) longer than `MAX_ID_LENGTH` characters, refused
 * where it entered (a call, an HTTP request, the inspector, the command line) before anything
 * is read or stored. `what` names the id.
 */
export class IdTooLongError extends AgentStateError {
  readonly what: string;
  readonly length: number;

  constructor(what: string, length: number, limit: number, scope: ErrorScope = {}) {
    super(
      'ID_TOO_LONG',
      `The ${what} is ${length} characters long; ids have at most ${limit}`,
      scope,
    );
    this.what = what;
    this.length = length;
  }
}
