import type {
  EmbeddingModelV3,
  EmbeddingModelV4,
  EmbeddingModelV4CallOptions,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import { InvalidEmbeddingError } from '../errors/memory-errors.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import { aiSdkFailure } from './ai-sdk-result.js';
import type { Embedder, EmbeddingUsage } from './embedder.js';
import { textBatches } from './text-batches.js';

/** An embedding model of the AI SDK provider specification, version 3 or 4. */
export type AiSdkEmbeddingModel = EmbeddingModelV4 | EmbeddingModelV3;

/** Options of {@link aiSdkEmbedder}. */
export interface AiSdkEmbedderOptions {
  /** How many numbers the model's vectors have (the AI SDK does not say). */
  dimensions: number;
  /**
   * The name memories remember (a search compares only memories of its model).
   * @default the model's `modelId`
   */
  name?: string | undefined;
  /**
   * Most texts one call takes.
   * @default the model's `maxEmbeddingsPerCall` when it is a finite number, else 96
   */
  maxBatch?: number | undefined;
  /** USD per million input tokens, for run usage and cost budgets. @default none (unpriced) */
  pricePerMillionTokens?: number | undefined;
  /**
   * Sent with every call, keyed by provider, e.g. `{ openai: { dimensions: 256 } }` to have
   * `text-embedding-3-large` shorten its vectors (then say `dimensions: 256` too).
   */
  providerOptions?: SharedV4ProviderOptions | undefined;
}

const OPTION_NAMES = optionNames<AiSdkEmbedderOptions>({
  dimensions: true,
  name: true,
  maxBatch: true,
  pricePerMillionTokens: true,
  providerOptions: true,
});

/**
 * Adapts an AI SDK embedding model (`@ai-sdk/provider` specification v3 or v4: the
 * `.embedding(...)` models of `@ai-sdk/openai`, `@ai-sdk/google`, `@ai-sdk/mistral`,
 * `@ai-sdk/amazon-bedrock`, `@ai-sdk/cohere`, Ollama providers, ...) to {@link Embedder}. A call
 * never sends the model more texts than its `maxEmbeddingsPerCall` (also when that is only
 * known once awaited), nor more bytes than it says it takes per call (as the AI SDK's
 * `embedMany` does): a larger one is split, the vectors joined in order and the usage added
 * up. Failures are `ModelError`s (an `APICallError`'s status, retryability and request id);
 * cancellation through the signal is rethrown unchanged.
 * @throws TypeError for something that is not an embedding model of v3 or v4, a missing or bad
 *   `dimensions`, an unknown option or a bad option value.
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const embedder = aiSdkEmbedder(openai.embedding('text-embedding-3-small'), { dimensions: 1536 });
 */
export function aiSdkEmbedder(model: AiSdkEmbeddingModel, options: AiSdkEmbedderOptions): Embedder {
  return new AiSdkEmbedder(model, options);
}

const DEFAULT_MAX_BATCH = 96;

/**
 * Where an AI SDK embedding model may say how many bytes of text one call takes (the AI SDK's
 * `embedMany` reads it too; OpenAI's models say 300,000). A registered symbol: reading it
 * loads nothing.
 */
const MAX_INPUT_BYTES = Symbol.for('vercel.ai.embeddingModel.maxInputBytesPerCall');

class AiSdkEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  readonly maxBatch: number;
  readonly pricePerMillionTokens: number | undefined;
  private readonly model: EmbeddingModelV4;
  private readonly providerOptions: SharedV4ProviderOptions | undefined;

  constructor(model: AiSdkEmbeddingModel, options: AiSdkEmbedderOptions) {
    const version = isObject(model) ? model['specificationVersion'] : undefined;
    if ((version !== 'v3' && version !== 'v4') || typeof model.doEmbed !== 'function') {
      throw new TypeError(
        `aiSdkEmbedder(): the model must be an AI SDK embedding model of specification v3 or v4 (a doEmbed function), got ${isObject(model) ? `specification ${String(version)}` : typeof model}`,
      );
    }
    new OptionChecker('aiSdkEmbedder()', options ?? null, OPTION_NAMES)
      .check(
        'dimensions',
        'a positive integer',
        (v) => Number.isInteger(v) && (v as number) > 0,
        true,
      )
      .nonEmptyString('name')
      .positiveInteger('maxBatch')
      .nonNegativeNumber('pricePerMillionTokens')
      .object('providerOptions');
    // v3 and v4 share the call and result shapes used here.
    this.model = model as EmbeddingModelV4;
    this.name = options.name ?? model.modelId;
    this.dimensions = options.dimensions;
    this.maxBatch =
      options.maxBatch ?? finiteLimit(model.maxEmbeddingsPerCall) ?? DEFAULT_MAX_BATCH;
    this.pricePerMillionTokens = options.pricePerMillionTokens;
    this.providerOptions = options.providerOptions;
  }

  async embed(
    texts: readonly string[],
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<{ vectors: (Float32Array | readonly number[])[]; usage: EmbeddingUsage }> {
    const { signal } = options;
    const vectors: (readonly number[])[] = [];
    let inputTokens = 0;
    try {
      const [limit, bytes] = await Promise.all([
        this.model.maxEmbeddingsPerCall,
        (this.model as { [MAX_INPUT_BYTES]?: unknown })[MAX_INPUT_BYTES],
      ]);
      const batches = textBatches(
        texts,
        finiteLimit(limit) ?? texts.length,
        finiteLimit(bytes) ?? Number.POSITIVE_INFINITY,
      );
      for (const values of batches) {
        const call: EmbeddingModelV4CallOptions = { values };
        if (signal) call.abortSignal = signal;
        if (this.providerOptions) call.providerOptions = this.providerOptions;
        const result = await this.model.doEmbed(call);
        signal?.throwIfAborted();
        if (!Array.isArray(result?.embeddings) || result.embeddings.length !== values.length) {
          const got = Array.isArray(result?.embeddings) ? result.embeddings.length : 'no';
          throw new InvalidEmbeddingError(this.name, `${got} vectors for ${values.length} texts`);
        }
        vectors.push(...result.embeddings);
        const tokens = result.usage?.tokens;
        if (typeof tokens === 'number' && Number.isFinite(tokens) && tokens > 0) {
          inputTokens += tokens;
        }
      }
    } catch (error) {
      throw aiSdkFailure(error, signal);
    }
    return { vectors, usage: { inputTokens } };
  }
}

/** A model's limit when it is a finite positive number (once awaited, if a promise). */
function finiteLimit(limit: unknown): number | undefined {
  return typeof limit === 'number' && Number.isFinite(limit) && limit >= 1
    ? Math.floor(limit)
    : undefined;
}
