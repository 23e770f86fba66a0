import { createOpenAI } from '@ai-sdk/openai';
import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { MockEmbeddingModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aiSdkEmbedder, type AiSdkEmbedderOptions } from '../../src/ai-sdk.js';
import { InvalidEmbeddingError } from '../../src/errors/memory-errors.js';
import { ModelError } from '../../src/errors/run-errors.js';
import { embedTexts } from '../../src/models/embedder.js';
import type { ChatCompletionsServer } from '../helpers/chat-completions-server.js';
import { embedReply, inputsOf, startEmbeddingsServer } from '../helpers/embeddings-server.js';

let server: ChatCompletionsServer;
beforeEach(async () => {
  server = await startEmbeddingsServer();
});
afterEach(async () => {
  await server.close();
});

/** The AI SDK's own OpenAI provider, on the test server. */
const providerModel = (modelId = 'text-embedding-3-small') =>
  createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).embedding(modelId);

/** A vector that names its text: `t17` -> [17, 1, 0.5, -0.25]. */
const vectorOf = (text: string) => [Number(text.slice(1)), 1, 0.5, -0.25];
const texts = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

/** The error `promise` rejects with. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as ModelError,
  );

describe('aiSdkEmbedder with @ai-sdk/openai', () => {
  it('embeds through the provider: vectors in order, usage, cost, the request it sends', async () => {
    server.enqueue(embedReply(vectorOf, { tokens: () => 3 }));
    const embedder = aiSdkEmbedder(providerModel(), { dimensions: 4, pricePerMillionTokens: 2 });
    expect(embedder).toMatchObject({ name: 'text-embedding-3-small', dimensions: 4 });
    const result = await embedTexts(embedder, ['t5', 't6', 't7']);
    expect(result.vectors.map((v) => [...v])).toEqual([
      [5, 1, 0.5, -0.25],
      [6, 1, 0.5, -0.25],
      [7, 1, 0.5, -0.25],
    ]);
    expect(result.usage).toEqual({ inputTokens: 9 });
    expect(result.costUsd).toBeCloseTo((9 * 2) / 1e6, 15);
    expect(server.requests[0]?.url).toBe('/v1/embeddings');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key');
    expect(server.body()).toEqual({
      model: 'text-embedding-3-small',
      input: ['t5', 't6', 't7'],
      encoding_format: 'float',
    });
  });

  it("batches by the model's maxEmbeddingsPerCall (2,048 for OpenAI's)", async () => {
    server.enqueue(embedReply(vectorOf), embedReply(vectorOf), embedReply(vectorOf));
    const embedder = aiSdkEmbedder(providerModel(), { dimensions: 4 });
    expect(embedder.maxBatch).toBe(2048);
    const all = texts(5000);
    const result = await embedTexts(embedder, all);
    expect(server.requests.map((r) => inputsOf(r).length)).toEqual([2048, 2048, 904]);
    expect(server.requests.flatMap(inputsOf)).toEqual(all);
    expect(result.vectors.map((v) => v[0])).toEqual(all.map((_, i) => i));
    expect(result.usage).toEqual({ inputTokens: 5000 });
  });

  it("splits a call by the bytes the model takes per call (300,000 for OpenAI's)", async () => {
    const texts = Array.from({ length: 4 }, (_, i) => `t${i} `.padEnd(100_000, 'x'));
    const head = (text: string) => vectorOf(text.split(' ')[0]!);
    server.enqueue(embedReply(head), embedReply(head));
    const { vectors } = await embedTexts(aiSdkEmbedder(providerModel(), { dimensions: 4 }), texts);
    expect(server.requests.map((r) => inputsOf(r).length)).toEqual([3, 1]);
    expect(vectors.map((v) => v[0])).toEqual([0, 1, 2, 3]);
  });

  it('splits a call by a limit the model only gives as a promise', async () => {
    const real = providerModel();
    const model = Object.create(real, {
      maxEmbeddingsPerCall: { value: Promise.resolve(2) },
    }) as EmbeddingModelV4;
    server.enqueue(...[1, 2, 3].map(() => embedReply(vectorOf, { tokens: () => 1 })));
    const embedder = aiSdkEmbedder(model, { dimensions: 4 });
    expect(embedder.maxBatch).toBe(96); // not known until awaited
    const result = await embedder.embed(texts(5), {});
    expect(server.requests.map(inputsOf)).toEqual([['t0', 't1'], ['t2', 't3'], ['t4']]);
    expect(result.vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4]);
    expect(result.usage).toEqual({ inputTokens: 5 });
  });

  it('sends providerOptions, e.g. the dimensions OpenAI shortens to', async () => {
    server.enqueue(embedReply(vectorOf));
    const options: AiSdkEmbedderOptions = {
      dimensions: 4,
      name: 'large-4',
      providerOptions: { openai: { dimensions: 4 } },
    };
    const embedder = aiSdkEmbedder(providerModel('text-embedding-3-large'), options);
    await embedTexts(embedder, ['t1']);
    expect(server.body()).toMatchObject({ model: 'text-embedding-3-large', dimensions: 4 });
    expect(embedder.name).toBe('large-4');
  });

  it('a 429 or 401 is a ModelError with its status and retryability', async () => {
    server.enqueue(
      { status: 429, error: 'Rate limit reached', headers: { 'x-request-id': 'req_429' } },
      { status: 401, error: 'Incorrect API key provided' },
    );
    const embedder = aiSdkEmbedder(providerModel(), { dimensions: 4 });
    const limited = await failure(embedTexts(embedder, ['t1']));
    expect(limited).toBeInstanceOf(ModelError);
    expect(limited).toMatchObject({ status: 429, retryable: true, requestId: 'req_429' });
    const refused = await failure(embedTexts(embedder, ['t1']));
    expect(refused).toMatchObject({ status: 401, retryable: false, code: 'MODEL_ERROR' });
  });

  it('rethrows cancellation unchanged', async () => {
    const controller = new AbortController();
    server.enqueue(() => controller.abort());
    const embedder = aiSdkEmbedder(providerModel(), { dimensions: 4 });
    const error = await failure(embedder.embed(['t1'], { signal: controller.signal }));
    expect(error).not.toBeInstanceOf(ModelError);
    expect((error as Error).name).toBe('AbortError');
  });

  it('a vector of another dimension is InvalidEmbeddingError through embedTexts', async () => {
    server.enqueue(embedReply(() => [1, 2, 3]));
    const embedder = aiSdkEmbedder(providerModel(), { dimensions: 4 });
    const error = await failure(embedTexts(embedder, ['t1']));
    expect(error).toBeInstanceOf(InvalidEmbeddingError);
    expect(error.message).toMatch(/a vector of 3 dimensions, it declares 4/);
  });
});

describe('aiSdkEmbedder with other models', () => {
  it('adapts a v3 model; fewer vectors than texts is InvalidEmbeddingError', async () => {
    const model = new MockEmbeddingModelV3({
      modelId: 'mock-v3',
      maxEmbeddingsPerCall: null,
      doEmbed: [
        { embeddings: [[1, 0]], usage: { tokens: 4 }, warnings: [] },
        { embeddings: [[1, 0]], warnings: [] },
      ],
    });
    const embedder = aiSdkEmbedder(model, { dimensions: 2, maxBatch: 8 });
    expect(embedder).toMatchObject({ name: 'mock-v3', maxBatch: 8 });
    expect(await embedTexts(embedder, ['a'])).toMatchObject({ usage: { inputTokens: 4 } });
    const error = await failure(embedTexts(embedder, ['a', 'b']));
    expect(error).toBeInstanceOf(InvalidEmbeddingError);
    expect(error.message).toMatch(/answered 1 vectors for 2 texts/);
  });

  it('refuses what is not an embedding model, and bad options', () => {
    const model = providerModel();
    expect(() => aiSdkEmbedder({} as EmbeddingModelV4, { dimensions: 4 })).toThrow(
      /must be an AI SDK embedding model of specification v3 or v4/,
    );
    const bad: [Record<string, unknown> | undefined, RegExp][] = [
      [undefined, /options must be an object/],
      [{}, /option "dimensions" must be a positive integer, got undefined/],
      [{ dimensions: 4, maxBatch: 0 }, /option "maxBatch" must be a positive integer/],
      [{ dimensions: 4, name: '' }, /option "name" must be a non-empty string/],
      [{ dimensions: 4, price: 1 }, /unknown option "price"/],
    ];
    for (const [options, message] of bad) {
      expect(() => aiSdkEmbedder(model, options as unknown as AiSdkEmbedderOptions)).toThrow(
        message,
      );
    }
  });
});
