import { AgentStateError } from './agentstate-error.js';

/**
 * A PostgreSQL schema holds no agentstate store (a mistyped `schema`, a database never set up)
 * and the store was opened with `create: false`: nothing was created or written.
 */
export class StoreNotFoundError extends AgentStateError {
  readonly schema: string;
  constructor(schema: string) {
    super(
      'STORE_NOT_FOUND',
      `The PostgreSQL schema "${schema}" holds no agentstate store (nothing was created)`,
    );
    this.schema = schema;
  }
}
