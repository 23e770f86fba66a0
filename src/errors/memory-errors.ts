import { AgentStateError } from './agentstate-error.js';

/**
 * The typed errors of memory across sessions (`AgentOptions.memory`, `openMemory`, a store's
 * memory capability). None leaves anything stored changed.
 */

/**
 * A memory a store was asked to keep is not valid: an empty text, a vector of no or too many
 * dimensions, one that is not finite (NaN, Infinity), or of another dimension than the
 * memories its scope holds for that embedding model. Names the memory (`memoryId`) and what is
 * wrong; the whole write is refused.
 */
export class InvalidMemoryError extends AgentStateError {
  constructor(
    readonly memoryId: string | undefined,
    readonly problem: string,
  ) {
    super(
      'INVALID_MEMORY',
      memoryId === undefined ? `Invalid memory: ${problem}` : `Memory "${memoryId}": ${problem}`,
    );
  }
}

/**
 * An embedding model answered what cannot be used: another number of vectors than texts, a
 * vector of another dimension than the embedder declares, or a value that is not finite.
 */
export class InvalidEmbeddingError extends AgentStateError {
  constructor(
    readonly embedder: string,
    readonly problem: string,
  ) {
    super('INVALID_EMBEDDING', `Embedding model "${embedder}" answered ${problem}`);
  }
}

/**
 * A working-memory write expected another version than the stored one (another session of the
 * same scope wrote first). The runtime re-reads and applies its change again; an app calling
 * the store directly decides.
 */
export class MemoryConflictError extends AgentStateError {
  constructor(
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      'MEMORY_CONFLICT',
      `Working memory is at version ${actualVersion}, not ${expectedVersion}: another writer updated it first`,
    );
  }
}

/**
 * A working-memory update breaks the app's schema (or its patch cannot apply: a `replace`
 * whose text is not there). From the model, it goes back to the model as the tool's error;
 * nothing is stored.
 */
export class InvalidWorkingMemoryError extends AgentStateError {
  constructor(readonly problem: string) {
    super('INVALID_WORKING_MEMORY', `Working memory update refused: ${problem}`);
  }
}

/** The store has no memory capability (its `supports` does not claim `memory`). */
export class MemoryUnsupportedError extends AgentStateError {
  constructor(readonly store: string) {
    super(
      'MEMORY_UNSUPPORTED',
      `The store (${store}) keeps no memory: use the LevelDB, memory or PostgreSQL store, or one whose supports claims memory`,
    );
  }
}
