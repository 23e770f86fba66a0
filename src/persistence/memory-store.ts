/**
 * Memory across sessions, as a store keeps it: items (messages of past sessions, facts an agent
 * saved) with their embedding vectors, searched by similarity, and one working-memory document
 * per scope. Everything is partitioned by `userId` exactly like sessions (another user's memory
 * behaves as missing, the anonymous bucket never sees a named one); a `resource` the app names
 * (a project, a ticket, a customer) divides a user's memory further.
 *
 * The store's `memory` capability (`STORE_CONTRACT`), checked by the exported contract suite.
 */

/** Whose memory: a user (omitted: the anonymous bucket), and optionally one resource of theirs. */
export interface MemoryScope {
  userId?: string | undefined;
  /** A resource the app names (1 to 200 characters); omitted: the user's own scope. */
  resource?: string | undefined;
}

/** What a memory is: a message of a past session, or a fact an agent (or the app) saved. */
export type MemoryKind = 'message' | 'fact';

/** A memory to keep (see `MemoryStore.putMemories`). */
export interface MemoryInput extends MemoryScope {
  /**
   * Its id, chosen by the writer so a write repeated after a crash keeps one memory:
   * `msg:<sessionId>:<position>` for a message, `fact:<sessionId>:<callId>` for a fact an agent
   * saved. 1 to 400 characters, no control characters. Unique within its user.
   */
  id: string;
  kind: MemoryKind;
  /** The text embedded and recalled (1 to 32,000 characters). */
  text: string;
  /** A message's role. */
  role?: 'user' | 'assistant' | undefined;
  /** The session it came from (absent: saved by the app outside a session). */
  sessionId?: string | undefined;
  /** Where in that session's history the message is. */
  position?: number | undefined;
  /** When it was said or saved: epoch milliseconds. */
  at: number;
  /** The embedding model's name: a search compares only memories of its own model. */
  model: string;
  /** The embedding: 1 to 16,000 finite numbers. */
  vector: Float32Array | readonly number[];
}

/** A stored memory as read back (without its vector). */
export interface Memory {
  id: string;
  userId?: string | undefined;
  resource?: string | undefined;
  kind: MemoryKind;
  text: string;
  role?: 'user' | 'assistant' | undefined;
  sessionId?: string | undefined;
  position?: number | undefined;
  at: number;
  model: string;
  /** The vector's dimension. */
  dimensions: number;
}

/** One search result: the memory and its cosine similarity to the query (-1 to 1). */
export interface MemoryMatch {
  memory: Memory;
  score: number;
}

export interface MemorySearch {
  userId?: string | undefined;
  /**
   * The resource searched; omitted: every memory of the user (their own scope and all of their
   * resources).
   */
  resource?: string | undefined;
  /** Only memories embedded by this model (and of the query's dimension). */
  model: string;
  vector: Float32Array | readonly number[];
  /** At most this many, best first (1 to 1,000). */
  topK: number;
  /** Only those scoring at least this (cosine similarity). */
  minScore?: number | undefined;
  /** Leave out the memories of this session (recall looks at the *other* sessions). */
  excludeSessionId?: string | undefined;
  kinds?: readonly MemoryKind[] | undefined;
}

export interface MemoryListQuery {
  userId?: string | undefined;
  /** Omitted: every memory of the user. */
  resource?: string | undefined;
  kind?: MemoryKind | undefined;
  /** @default 50 (at most 1,000) */
  limit?: number | undefined;
  /** Opaque cursor from a previous page. */
  cursor?: string | undefined;
}

/** A page of memories, newest first (in the order they were stored). */
export interface MemoryPage {
  memories: Memory[];
  nextCursor: string | undefined;
}

/** A scope's working memory, as stored. */
export interface WorkingMemoryRecord {
  /** Plain JSON: a string (free text) or an object (the app's schema). */
  content: unknown;
  /** 1 for the first write, one more for each. */
  version: number;
  /** Epoch milliseconds. */
  updatedAt: number;
}

export interface WorkingMemoryWrite {
  content: unknown;
  /** The version the writer read (0: it read none). Another stored: `MemoryConflictError`. */
  expectedVersion: number;
  /**
   * Names this update: a write whose `opId` the document already took (one of its latest 64) is
   * not applied again, and answers `applied: false` with the stored document. The runtime uses
   * `<sessionId>:<callId>` so a tool call retried after a crash updates once.
   */
  opId: string;
  at: number;
}

/** A scope's memory at a glance (for the inspector and the command line). */
export interface MemoryResource {
  /** Omitted: the user's own scope. */
  resource?: string | undefined;
  memories: number;
  workingMemory: boolean;
}

/** What a `forgetMemories` erased. */
export interface ForgetResult {
  memories: number;
  workingMemories: number;
}

/**
 * The store's memory. Writes are atomic and checked whole before anything is stored (an
 * `InvalidMemoryError` names the memory at fault). `forgetMemories` erases to the byte: a scan
 * of the store's files or tables afterwards finds none of the erased texts or vectors.
 */
export interface MemoryStore {
  /**
   * Keeps memories, all or none. A memory whose id its user has already is left as it is
   * (a repeated write is harmless); answers how many were new.
   */
  putMemories(memories: readonly MemoryInput[]): Promise<{ written: number }>;
  /** The best matches of one user's memory (see `MemorySearch`), best first. */
  searchMemories(query: MemorySearch): Promise<MemoryMatch[]>;
  listMemories(query: MemoryListQuery): Promise<MemoryPage>;
  /** The memories of `ids` the user has (others, and other users', are left out), in `ids` order. */
  getMemories(scope: { userId?: string | undefined }, ids: readonly string[]): Promise<Memory[]>;
  /** Removes memories by id (of this user only); answers how many were there. */
  deleteMemories(scope: { userId?: string | undefined }, ids: readonly string[]): Promise<number>;
  readWorkingMemory(scope: MemoryScope): Promise<WorkingMemoryRecord | undefined>;
  /**
   * Stores a scope's working memory if its version is `expectedVersion` (else
   * `MemoryConflictError`), once per `opId`.
   */
  writeWorkingMemory(
    scope: MemoryScope,
    write: WorkingMemoryWrite,
  ): Promise<WorkingMemoryRecord & { applied: boolean }>;
  /**
   * Erases a scope: with `resource`, that resource's memories and working memory; without, all
   * of the user's (every resource and their own scope).
   */
  forgetMemories(scope: MemoryScope): Promise<ForgetResult>;
  /** A user's scopes that hold memory, their own first, then by resource name. */
  memoryResources(scope: { userId?: string | undefined }): Promise<MemoryResource[]>;
}
