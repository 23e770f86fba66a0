import { InvalidEmbeddingError } from '../errors/memory-errors.js';
import { roundUsd } from '../validation/usd-amount.js';
import { textBatches } from './text-batches.js';

/** Token counts of one embedding call. */
export interface EmbeddingUsage {
  inputTokens: number;
}

/**
 * An embedding model: texts in, one vector each out. Adapters: `openaiEmbedder` (the `openai`
 * package), `aiSdkEmbedder` (`agentstate-runtime/ai-sdk`), `scriptedEmbedder`
 * (`agentstate-runtime/testing`, deterministic and offline).
 */
export interface Embedder {
  /** The model's name: memories remember it, and a search compares only those of its model. */
  readonly name: string;
  /** How many numbers each vector has. */
  readonly dimensions: number;
  /** Most texts one call takes (`embedTexts` splits larger batches). @default 96 */
  readonly maxBatch?: number | undefined;
  /** USD per million input tokens, for run usage and cost budgets (absent: unpriced). */
  readonly pricePerMillionTokens?: number | undefined;
  embed(
    texts: readonly string[],
    options: { signal?: AbortSignal | undefined },
  ): Promise<{ vectors: (Float32Array | readonly number[])[]; usage: EmbeddingUsage }>;
}

/** What `embedTexts` answers: a checked vector per text, the usage and its cost. */
export interface Embedded {
  vectors: Float32Array[];
  usage: EmbeddingUsage;
  /** USD, to twelve significant digits like a model call's (0 when the embedder has no price). */
  costUsd: number;
}

/**
 * Embeds `texts` in batches of the embedder's `maxBatch`, one call after another, and checks
 * what came back (as many vectors as texts, each of `dimensions` finite numbers): anything else
 * is `InvalidEmbeddingError` and nothing is stored.
 */
export async function embedTexts(
  embedder: Embedder,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<Embedded> {
  const vectors: Float32Array[] = [];
  let inputTokens = 0;
  for (const part of textBatches(texts, embedder.maxBatch ?? 96)) {
    const answer = await embedder.embed(part, { signal });
    signal?.throwIfAborted();
    if (!Array.isArray(answer?.vectors) || answer.vectors.length !== part.length) {
      throw new InvalidEmbeddingError(
        embedder.name,
        `${Array.isArray(answer?.vectors) ? answer.vectors.length : 'no'} vectors for ${part.length} texts`,
      );
    }
    for (const v of answer.vectors) vectors.push(checkedEmbedding(embedder, v));
    const tokens = answer.usage?.inputTokens;
    inputTokens +=
      typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 0 ? tokens : 0;
  }
  const price = embedder.pricePerMillionTokens;
  return {
    vectors,
    usage: { inputTokens },
    costUsd: price ? roundUsd((inputTokens * price) / 1_000_000) : 0,
  };
}

function checkedEmbedding(embedder: Embedder, vector: unknown): Float32Array {
  const length = (vector as ArrayLike<unknown> | undefined)?.length;
  if (!(vector instanceof Float32Array) && !Array.isArray(vector)) {
    throw new InvalidEmbeddingError(embedder.name, 'a vector that is not an array of numbers');
  }
  if (length !== embedder.dimensions) {
    throw new InvalidEmbeddingError(
      embedder.name,
      `a vector of ${String(length)} dimensions, it declares ${embedder.dimensions}`,
    );
  }
  const out = vector instanceof Float32Array ? vector : Float32Array.from(vector as number[]);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i]!)) {
      throw new InvalidEmbeddingError(embedder.name, `a vector holding ${String(out[i])} at ${i}`);
    }
  }
  return out;
}
