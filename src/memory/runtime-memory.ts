import type { Clock } from '../core/clock.js';
import type { RunContext } from '../core/run-context.js';
import { MemoryUnsupportedError } from '../errors/memory-errors.js';
import type { MemoryStore } from '../persistence/memory-store.js';
import type { SessionStore } from '../persistence/session-store.js';
import { hasMemory } from '../persistence/store-supports.js';
import { resolveMemory, type MemoryOptions, type ResolvedMemory } from './memory-options.js';
import type { RecallCache } from './recall.js';
import { ScopedMemory, type EmbeddingCost } from './scoped-memory.js';

/** How many sessions' recall caches a runtime keeps (the least recently used go first). */
const CACHED_SESSIONS = 1000;

/**
 * An agent's memory in one runtime (one store): the scoped memory each run uses, what recall
 * remembers per session between model calls, and what embedding cost per run until its next
 * model step counts it. Made once per `SessionRuntime`; `undefined` when the agent has none.
 */
export class RuntimeMemory {
  private readonly caches = new Map<string, RecallCache>();
  private readonly tallies = new Map<string, EmbeddingCost>();

  private constructor(
    readonly options: ResolvedMemory,
    private readonly store: MemoryStore,
    private readonly clock: Clock,
  ) {}

  /** The memory of an agent's runs on `store` (`MemoryUnsupportedError` if it keeps none). */
  static of(
    options: MemoryOptions | undefined,
    store: SessionStore,
    clock: Clock,
  ): RuntimeMemory | undefined {
    if (!options) return undefined;
    if (!hasMemory(store)) throw new MemoryUnsupportedError(store.constructor.name);
    return new RuntimeMemory(resolveMemory(options), store, clock);
  }

  /** The memory a run of `context` uses: its user's, and its resource's. */
  forRun(context: RunContext): ScopedMemory {
    const resource = this.options.resource?.(context);
    const runId = context.runId;
    return new ScopedMemory(
      this.store,
      this.options,
      {
        ...(context.userId === undefined ? {} : { userId: context.userId }),
        ...(resource === undefined ? {} : { resource }),
      },
      this.clock,
      (cost) => this.tally(runId, cost),
      context.sessionId,
    );
  }

  /** What recall remembers of `sessionId` between model calls. */
  cacheOf(sessionId: string): RecallCache {
    let cache = this.caches.get(sessionId);
    if (cache) {
      this.caches.delete(sessionId);
    } else {
      cache = { kept: new Set() };
      if (this.caches.size >= CACHED_SESSIONS) {
        this.caches.delete(this.caches.keys().next().value!);
      }
    }
    this.caches.set(sessionId, cache);
    return cache;
  }

  /** What embedding cost for `runId` since this was last asked (and forgets it). */
  takeCost(runId: string): EmbeddingCost | undefined {
    const cost = this.tallies.get(runId);
    this.tallies.delete(runId);
    return cost;
  }

  private tally(runId: string | undefined, cost: EmbeddingCost): void {
    if (runId === undefined) return;
    // a run that stopped before its next model step leaves its tally: keep the map bounded
    if (this.tallies.size >= CACHED_SESSIONS && !this.tallies.has(runId)) {
      this.tallies.delete(this.tallies.keys().next().value!);
    }
    const was = this.tallies.get(runId);
    this.tallies.set(
      runId,
      was
        ? {
            model: cost.model,
            inputTokens: was.inputTokens + cost.inputTokens,
            costUsd:
              was.costUsd === undefined && cost.costUsd === undefined
                ? undefined
                : (was.costUsd ?? 0) + (cost.costUsd ?? 0),
          }
        : cost,
    );
  }
}
