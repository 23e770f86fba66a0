import { MemoryConflictError } from '../errors/memory-errors.js';
import type { Clock } from '../core/clock.js';
import { embedTexts, type Embedded, type Embedder } from '../models/embedder.js';
import type {
  MemoryInput,
  MemoryMatch,
  MemoryScope,
  MemoryStore,
  WorkingMemoryRecord,
} from '../persistence/memory-store.js';
import type { ToolMemory } from '../tools/tool-memory.js';
import type { ResolvedMemory } from './memory-options.js';
import { applyPatch, initialContent } from './working-memory.js';

/** How often a patch is applied again over another writer's update before it gives up. */
const CONFLICT_RETRIES = 16;

/** What embedding cost, counted with the next model step of the run (`EmbeddingTally`). */
export interface EmbeddingCost {
  model: string;
  inputTokens: number;
  costUsd: number | undefined;
}

/**
 * The memory of one scope (a user, and a resource of theirs) for the runs and the operators
 * that use it: working memory patched without lost updates, facts remembered once, searches.
 */
export class ScopedMemory implements ToolMemory {
  constructor(
    private readonly store: MemoryStore,
    private readonly options: ResolvedMemory,
    readonly scope: MemoryScope,
    private readonly clock: Clock,
    /** Told what each embedding call cost (the run's tally). */
    private readonly spent: (cost: EmbeddingCost) => void = () => undefined,
    /** The session whose run uses it: the source of the facts it saves. */
    private readonly sessionId?: string,
  ) {}

  workingMemory(): Promise<WorkingMemoryRecord | undefined> {
    return this.store.readWorkingMemory(this.scope);
  }

  /**
   * Applies `patch` to the document as stored: read, apply, write at the version read; when
   * another writer wrote in between (`MemoryConflictError`), read again and apply again, so both
   * updates land. A write whose `opId` the document already took is not applied twice (a tool
   * call retried after a crash).
   */
  async updateWorkingMemory(
    patch: unknown,
    options: { opId: string },
  ): Promise<{ content: unknown; version: number; applied: boolean }> {
    const working = this.options.working ?? {};
    for (let attempt = 0; ; attempt++) {
      const stored = await this.store.readWorkingMemory(this.scope);
      const content = applyPatch(stored?.content ?? initialContent(working), patch, working);
      try {
        const written = await this.store.writeWorkingMemory(this.scope, {
          content,
          expectedVersion: stored?.version ?? 0,
          opId: options.opId,
          at: this.clock.now(),
        });
        return { content: written.content, version: written.version, applied: written.applied };
      } catch (error) {
        if (!(error instanceof MemoryConflictError) || attempt >= CONFLICT_RETRIES) throw error;
        // the winner's write may still be on its way to the store: let it land before reading
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  }

  /** Saves a fact under `id` (a repeated id keeps the first). */
  async remember(
    text: string,
    options: { id: string; sessionId?: string | undefined; signal?: AbortSignal | undefined },
  ): Promise<{ id: string }> {
    const embedder = this.embedder();
    const { vectors } = await this.embed(embedder, [text], options.signal);
    const sessionId = options.sessionId ?? this.sessionId;
    await this.store.putMemories([
      {
        ...this.scopeFields(),
        id: options.id,
        kind: 'fact',
        text,
        at: this.clock.now(),
        model: embedder.name,
        vector: vectors[0]!,
        ...(sessionId === undefined ? {} : { sessionId }),
      },
    ]);
    return { id: options.id };
  }

  async search(
    text: string,
    options: { topK?: number | undefined; minScore?: number | undefined } = {},
  ): Promise<
    { id: string; text: string; score: number; sessionId?: string | undefined; at: number }[]
  > {
    const embedder = this.embedder();
    const { vectors } = await this.embed(embedder, [text]);
    const found = await this.searchVector(embedder, vectors[0]!, {
      topK: options.topK ?? 5,
      minScore: options.minScore,
    });
    return found.map(({ memory, score }) => ({
      id: memory.id,
      text: memory.text,
      score,
      at: memory.at,
      ...(memory.sessionId === undefined ? {} : { sessionId: memory.sessionId }),
    }));
  }

  /** The scope's memories nearest `vector` (over the whole user when recall's scope says so). */
  searchVector(
    embedder: Embedder,
    vector: Float32Array,
    query: { topK: number; minScore?: number | undefined; excludeSessionId?: string | undefined },
  ): Promise<MemoryMatch[]> {
    const wholeUser = this.options.recall?.scope === 'user';
    return this.store.searchMemories({
      userId: this.scope.userId,
      ...(wholeUser || this.scope.resource === undefined ? {} : { resource: this.scope.resource }),
      model: embedder.name,
      vector,
      topK: query.topK,
      ...(query.minScore === undefined ? {} : { minScore: query.minScore }),
      ...(query.excludeSessionId === undefined ? {} : { excludeSessionId: query.excludeSessionId }),
    });
  }

  /** Keeps memories of this scope (a repeated id keeps the first). */
  keep(memories: Omit<MemoryInput, 'userId' | 'resource'>[]): Promise<{ written: number }> {
    return this.store.putMemories(memories.map((m) => ({ ...m, ...this.scopeFields() })));
  }

  /** Embeds `texts`, the cost told to the run's tally. */
  async embed(
    embedder: Embedder,
    texts: readonly string[],
    signal?: AbortSignal,
  ): Promise<Embedded> {
    const embedded = await embedTexts(embedder, texts, signal);
    this.spent({
      model: embedder.name,
      inputTokens: embedded.usage.inputTokens,
      costUsd: embedder.pricePerMillionTokens === undefined ? undefined : embedded.costUsd,
    });
    return embedded;
  }

  embedder(): Embedder {
    const embedder = this.options.embedder;
    if (!embedder) throw new TypeError('memory: this needs memory.embedder (an Embedder)');
    return embedder;
  }

  private scopeFields(): MemoryScope {
    return {
      ...(this.scope.userId === undefined ? {} : { userId: this.scope.userId }),
      ...(this.scope.resource === undefined ? {} : { resource: this.scope.resource }),
    };
  }
}
