import { AgentStateError } from './agentstate-error.js';

/** An agent certificate file that is not one (bad JSON, wrong shape, or a newer format version). */
export class InvalidCertificateError extends AgentStateError {
  /** Where in the file the first problem is, e.g. `tools.2.approval` (empty: the whole file). */
  readonly path: string;
  constructor(path: string, reason: string) {
    super(
      'INVALID_CERTIFICATE',
      `Invalid agent certificate${path ? ` at ${path}` : ''}: ${reason}`,
    );
    this.path = path;
  }
}
