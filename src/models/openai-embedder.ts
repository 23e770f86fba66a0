import type OpenAI from 'openai';
import { InvalidEmbeddingError } from '../errors/memory-errors.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import type { Embedder, EmbeddingUsage } from './embedder.js';
import { OpenAIConnection } from './openai-connection.js';
import { defaultEmbeddingPrices, findPrice } from './pricing.js';
import { textBatches } from './text-batches.js';

/** Options of {@link openaiEmbedder}. */
export interface OpenAIEmbedderOptions {
  /** The embedding model, e.g. `text-embedding-3-small`, or a local server's (`nomic-embed-text`). */
  model: string;
  /**
   * How many numbers each vector has. When given, it is sent as `dimensions` (the
   * `text-embedding-3` models shorten their vectors to it; `text-embedding-ada-002` takes no
   * `dimensions`: leave it out). A value other than the model's own size is part of the
   * embedder's `name` (`text-embedding-3-large:256`), so memories of two sizes never mix.
   * @default the model's size: `text-embedding-3-small` 1536, `text-embedding-3-large` 3072,
   *   `text-embedding-ada-002` 1536; required for any other model
   */
  dimensions?: number | undefined;
  /**
   * Most texts sent in one request. The API takes at most 2,048 inputs and 300,000 tokens per
   * request: a call is also split so that no request carries more than 300,000 bytes of text
   * (a token is at least a byte), whatever the batch.
   * @default 2048
   */
  maxBatch?: number | undefined;
  /**
   * USD per million input tokens, for run usage and cost budgets.
   * @default the list price of the OpenAI embedding models (`defaultEmbeddingPrices`); none for
   *   another model (unpriced)
   */
  pricePerMillionTokens?: number | undefined;
  /**
   * How vectors travel: `base64` (little-endian float32 bytes, copied straight into a
   * `Float32Array`) or `float` (JSON numbers, for a server that cannot send base64). Either
   * answer is read, whatever was asked. Measured on 96 vectors of 1,536 dimensions: base64 is
   * a quarter of the bytes and parses and decodes in 0.6 ms, against 16.5 ms for JSON numbers.
   * @default 'base64'
   */
  encodingFormat?: 'base64' | 'float' | undefined;
  /**
   * API key. Ignored when `client` is given.
   * @default process.env.OPENAI_API_KEY; with a `baseURL` and no key anywhere, a placeholder
   */
  apiKey?: string | undefined;
  /**
   * Base URL of an OpenAI-compatible server (`http://localhost:11434/v1` for Ollama). Ignored
   * when `client` is given.
   * @default process.env.OPENAI_BASE_URL, else `https://api.openai.com/v1`
   */
  baseURL?: string | undefined;
  /**
   * How often the SDK retries connection errors, 408, 409, 429 and 5xx answers.
   * @default 2
   */
  maxRetries?: number | undefined;
  /** Timeout of one HTTP attempt in milliseconds. @default the SDK's (10 minutes) */
  timeoutMs?: number | undefined;
  /** An already configured `OpenAI` client (e.g. an `AzureOpenAI`). */
  client?: OpenAI | undefined;
}

/** The sizes of OpenAI's embedding models, in dimensions. */
const MODEL_DIMENSIONS: Readonly<Record<string, number>> = Object.freeze({
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
});

/** The most inputs the embeddings API takes in one request. */
const API_MAX_INPUTS = 2048;

/** The most tokens the embeddings API takes in one request, summed over its inputs. */
const API_MAX_TOKENS = 300_000;

const OPTION_NAMES = optionNames<OpenAIEmbedderOptions>({
  model: true,
  dimensions: true,
  maxBatch: true,
  pricePerMillionTokens: true,
  encodingFormat: true,
  apiKey: true,
  baseURL: true,
  maxRetries: true,
  timeoutMs: true,
  client: true,
});

/**
 * An {@link Embedder} on the official `openai` package (`POST /embeddings`), for the OpenAI API
 * and OpenAI-compatible servers. Vectors come back in the order of the texts (placed by the
 * answer's `index`), as `Float32Array`s; usage is the answer's `prompt_tokens`.
 *
 * A failure is a `ModelError` like a chat model's (HTTP `status`, `requestId`, `retryable`; the
 * API key and credential headers removed from everything it holds, and from what the SDK
 * logs); cancellation through the signal is rethrown unchanged; an answer that does not match
 * the texts (missing, repeated or extra indexes, a base64 vector of a partial float) is
 * `InvalidEmbeddingError`. The `openai` package is loaded at the first call.
 * @throws TypeError for an unknown option, an empty `model`, no `dimensions` for a model of
 *   unknown size, a `maxBatch` above 2,048, or another bad option value; ModelError when no API
 *   key is given or set and no `baseURL` either.
 * @example
 * const embedder = openaiEmbedder({ model: 'text-embedding-3-small' }); // 1536 dimensions
 */
export function openaiEmbedder(options: OpenAIEmbedderOptions): Embedder {
  return new OpenAIEmbedder(options);
}

class OpenAIEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  readonly maxBatch: number;
  readonly pricePerMillionTokens: number | undefined;
  private readonly model: string;
  private readonly sentDimensions: number | undefined;
  private readonly encodingFormat: 'base64' | 'float';
  /** The client and its key: a private field, so neither JSON nor `inspect` of the embedder shows them. */
  readonly #connection: OpenAIConnection;

  constructor(options: OpenAIEmbedderOptions) {
    const call = 'openaiEmbedder()';
    new OptionChecker(call, options ?? null, OPTION_NAMES)
      .nonEmptyString('model', true)
      .positiveInteger('dimensions')
      .check('maxBatch', `an integer from 1 to ${API_MAX_INPUTS}`, (v) => {
        return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= API_MAX_INPUTS;
      })
      .nonNegativeNumber('pricePerMillionTokens')
      .check('encodingFormat', '"base64" or "float"', (v) => v === 'base64' || v === 'float')
      .string('apiKey')
      .string('baseURL')
      .nonNegativeInteger('maxRetries')
      .positiveInteger('timeoutMs')
      .check('client', 'an OpenAI client', (v) => isObject(v) && isObject(v['embeddings']));
    const own = Object.hasOwn(MODEL_DIMENSIONS, options.model)
      ? MODEL_DIMENSIONS[options.model]
      : undefined;
    const dimensions = options.dimensions ?? own;
    if (dimensions === undefined) {
      throw new TypeError(
        `${call}: option "dimensions" is required for "${options.model}" (known sizes: ${Object.keys(MODEL_DIMENSIONS).join(', ')})`,
      );
    }
    this.model = options.model;
    this.dimensions = dimensions;
    this.name =
      own === undefined || own === dimensions ? options.model : `${options.model}:${dimensions}`;
    this.sentDimensions = options.dimensions;
    this.maxBatch = options.maxBatch ?? API_MAX_INPUTS;
    this.pricePerMillionTokens =
      options.pricePerMillionTokens ??
      findPrice(options.model, defaultEmbeddingPrices)?.inputPerMillion;
    this.encodingFormat = options.encodingFormat ?? 'base64';
    this.#connection = new OpenAIConnection('openaiEmbedder()', options);
  }

  async embed(
    texts: readonly string[],
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<{ vectors: (Float32Array | readonly number[])[]; usage: EmbeddingUsage }> {
    const { signal } = options;
    const vectors: (Float32Array | readonly number[])[] = [];
    let inputTokens = 0;
    try {
      for (const input of textBatches(texts, this.maxBatch, API_MAX_TOKENS)) {
        const answer = await this.request(input, signal);
        vectors.push(...answer.vectors);
        inputTokens += answer.inputTokens;
      }
    } catch (error) {
      throw this.#connection.failure(error, signal);
    }
    return { vectors, usage: { inputTokens } };
  }

  /** One `POST /embeddings`: the vectors of `input` in its order, and the tokens it counted. */
  private async request(
    input: string[],
    signal: AbortSignal | undefined,
  ): Promise<{ vectors: (Float32Array | readonly number[])[]; inputTokens: number }> {
    const client = await this.#connection.load();
    const body: OpenAI.EmbeddingCreateParams = {
      model: this.model,
      input,
      encoding_format: this.encodingFormat,
    };
    if (this.sentDimensions !== undefined) body.dimensions = this.sentDimensions;
    const answer = await client.embeddings.create(body, this.#connection.requestOptions(signal));
    const tokens = (answer as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
    return {
      vectors: this.inInputOrder(answer.data, input.length),
      inputTokens: typeof tokens === 'number' && Number.isFinite(tokens) ? tokens : 0,
    };
  }

  /** The answer's vectors placed by their `index`: one for each text, none twice. */
  private inInputOrder(data: unknown, count: number): (Float32Array | readonly number[])[] {
    if (!Array.isArray(data) || data.length !== count) {
      const got = Array.isArray(data) ? data.length : 'no';
      throw new InvalidEmbeddingError(this.name, `${got} vectors for ${count} texts`);
    }
    const vectors = new Array<Float32Array | readonly number[] | undefined>(count);
    for (const item of data as unknown[]) {
      const index = isObject(item) ? item['index'] : undefined;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
        throw new InvalidEmbeddingError(
          this.name,
          `a vector at index ${String(index)} for ${count} texts`,
        );
      }
      if (vectors[index] !== undefined) {
        throw new InvalidEmbeddingError(this.name, `two vectors at index ${index}`);
      }
      vectors[index] = this.decoded((item as { embedding?: unknown }).embedding);
    }
    return vectors as (Float32Array | readonly number[])[];
  }

  /** A vector as sent: base64 little-endian float32 bytes, or a JSON array (checked later). */
  private decoded(embedding: unknown): Float32Array | readonly number[] {
    if (Array.isArray(embedding)) return embedding as number[];
    if (typeof embedding !== 'string') {
      throw new InvalidEmbeddingError(this.name, 'a vector that is neither base64 nor numbers');
    }
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length % Float32Array.BYTES_PER_ELEMENT !== 0) {
      throw new InvalidEmbeddingError(
        this.name,
        `a base64 vector of ${bytes.length} bytes, not a whole number of float32 values`,
      );
    }
    // A copy into a buffer of its own: aligned for the Float32Array, and not a view of the
    // pool Node decodes small strings into.
    const floats = new Float32Array(bytes.length / Float32Array.BYTES_PER_ELEMENT);
    new Uint8Array(floats.buffer).set(bytes);
    return floats;
  }
}
