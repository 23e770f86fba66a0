import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { newId } from '../core/new-id.js';
import { MemoryUnsupportedError } from '../errors/memory-errors.js';
import type { Embedder } from '../models/embedder.js';
import type {
  ForgetResult,
  Memory,
  MemoryListQuery,
  MemoryMatch,
  MemoryPage,
  MemoryResource,
  MemoryScope,
  MemoryStore,
  WorkingMemoryRecord,
} from '../persistence/memory-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { hasMemory } from '../persistence/store-supports.js';
import { resolveMemory, type WorkingMemoryOptions } from './memory-options.js';
import { ScopedMemory } from './scoped-memory.js';

/** `openMemory`'s options. */
export interface OpenMemoryOptions {
  /** Needed by `search` and `remember` (the agent's, so vectors compare). */
  embedder?: Embedder | undefined;
  /** The working memory's schema or template, as the agent has it (patches are checked by it). */
  workingMemory?: WorkingMemoryOptions | undefined;
  clock?: Clock | undefined;
}

/** What `forget` erases: a resource, or a whole user (and, with `sessions`, their sessions too). */
export interface ForgetScope extends MemoryScope {
  /**
   * Also purge every session and workflow instance of the user (history, journal, snapshots)
   * before their memory, so nothing they said stays stored. Only without `resource`.
   */
  sessions?: boolean | undefined;
}

/**
 * The memory of the users of a store, for the app and its operators: list, search, remember,
 * read and patch working memory, forget. Every call names its user (the same hard partition as
 * sessions). Made by `openMemory`.
 */
export class MemoryHandle {
  constructor(
    private readonly store: SessionStore & MemoryStore,
    private readonly options: OpenMemoryOptions,
  ) {}

  list(query: MemoryListQuery): Promise<MemoryPage> {
    return this.store.listMemories(query);
  }

  get(scope: { userId?: string | undefined }, ids: readonly string[]): Promise<Memory[]> {
    return this.store.getMemories(scope, ids);
  }

  /** The memories most similar to `text` (by the embedder's vectors), best first. */
  async search(
    query: MemoryScope & { text: string; topK?: number | undefined; minScore?: number | undefined },
  ): Promise<MemoryMatch[]> {
    const scoped = this.scoped(query);
    const embedder = scoped.embedder();
    const { vectors } = await scoped.embed(embedder, [query.text]);
    return this.store.searchMemories({
      userId: query.userId,
      ...(query.resource === undefined ? {} : { resource: query.resource }),
      model: embedder.name,
      vector: vectors[0]!,
      topK: query.topK ?? 10,
      ...(query.minScore === undefined ? {} : { minScore: query.minScore }),
    });
  }

  /** Saves a fact for a user (under `id`, or a new one) and answers it as stored. */
  async remember(scope: MemoryScope & { text: string; id?: string | undefined }): Promise<Memory> {
    const id = scope.id ?? `fact:${newId()}`;
    await this.scoped(scope).remember(scope.text, { id });
    const [stored] = await this.store.getMemories(scope, [id]);
    return stored!;
  }

  workingMemory(scope: MemoryScope): Promise<WorkingMemoryRecord | undefined> {
    return this.store.readWorkingMemory(scope);
  }

  /** Applies a patch as the agent's tool does (see `ToolMemory.updateWorkingMemory`). */
  updateWorkingMemory(
    scope: MemoryScope,
    patch: unknown,
    options: { opId?: string | undefined } = {},
  ): Promise<{ content: unknown; version: number; applied: boolean }> {
    return this.scoped(scope).updateWorkingMemory(patch, { opId: options.opId ?? newId() });
  }

  resources(scope: { userId?: string | undefined }): Promise<MemoryResource[]> {
    return this.store.memoryResources(scope);
  }

  /** Removes memories by id; answers how many were there. */
  delete(scope: { userId?: string | undefined }, ids: readonly string[]): Promise<number> {
    return this.store.deleteMemories(scope, ids);
  }

  /**
   * Erases a resource's memory, or a whole user's: memories, vectors, index entries and working
   * memory, to the byte (see `MemoryStore.forgetMemories`). With `sessions`, the user's sessions
   * and workflow instances are purged first, so what they said in them goes too.
   */
  async forget(scope: ForgetScope): Promise<ForgetResult & { sessions: number }> {
    if (scope.sessions && scope.resource !== undefined) {
      throw new TypeError('memory.forget: `sessions` erases a whole user: leave `resource` out');
    }
    let sessions = 0;
    if (scope.sessions) {
      for (const kind of ['session', 'workflow'] as const) {
        for (;;) {
          const page = await this.store.list({ userId: scope.userId, kind, limit: 100 });
          for (const info of page.sessions) {
            await this.store.purge({ sessionId: info.sessionId, userId: scope.userId });
            sessions++;
          }
          if (page.sessions.length === 0 || page.nextCursor === undefined) break;
        }
      }
    }
    const erased = await this.store.forgetMemories({
      userId: scope.userId,
      ...(scope.resource === undefined ? {} : { resource: scope.resource }),
    });
    return { ...erased, sessions };
  }

  private scoped(scope: MemoryScope): ScopedMemory {
    const resolved = resolveMemory({
      embedder: this.options.embedder,
      workingMemory: this.options.workingMemory ?? {},
      recall: false,
    });
    return new ScopedMemory(
      this.store,
      resolved,
      {
        ...(scope.userId === undefined ? {} : { userId: scope.userId }),
        ...(scope.resource === undefined ? {} : { resource: scope.resource }),
      },
      this.options.clock ?? systemClock,
    );
  }
}

/**
 * The memory kept in `store` (one whose `supports` claims `memory`: LevelDB, memory,
 * PostgreSQL; else `MemoryUnsupportedError`), for the app and its operators.
 * @example
 * const memory = openMemory(store, { embedder });
 * await memory.forget({ userId: 'alice', sessions: true });
 */
export function openMemory(store: SessionStore, options: OpenMemoryOptions = {}): MemoryHandle {
  if (!hasMemory(store)) throw new MemoryUnsupportedError(store.constructor.name);
  return new MemoryHandle(store, options);
}
