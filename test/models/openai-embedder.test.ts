import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidEmbeddingError } from '../../src/errors/memory-errors.js';
import { REDACTED } from '../../src/errors/redact-deep.js';
import { ModelError } from '../../src/errors/run-errors.js';
import { embedTexts } from '../../src/models/embedder.js';
import { openaiEmbedder, type OpenAIEmbedderOptions } from '../../src/models/openai-embedder.js';
import type { ChatCompletionsServer } from '../helpers/chat-completions-server.js';
import {
  base64Vector,
  embedReply,
  embeddingsBody,
  inputsOf,
  startEmbeddingsServer,
} from '../helpers/embeddings-server.js';

let server: ChatCompletionsServer;
beforeEach(async () => {
  server = await startEmbeddingsServer();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

/** An embedder of an unknown model with 4 dimensions, on the test server. */
const embedder = (options: Partial<OpenAIEmbedderOptions> = {}) =>
  openaiEmbedder({
    model: 'test-embed',
    dimensions: 4,
    apiKey: 'test-key',
    baseURL: server.baseURL,
    maxRetries: 0,
    ...options,
  });

/** A vector that names its text: `t17` -> [17, 1, 0.5, -0.25]. */
const vectorOf = (text: string) => [Number(text.slice(1)), 1, 0.5, -0.25];

/** The error `promise` rejects with. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as ModelError,
  );

/** Everything a log line could show of an error. */
const shown = (error: unknown) =>
  `${inspect(error, { showHidden: true, depth: null })}\n${JSON.stringify(error)}`;

describe('openaiEmbedder: requests and answers', () => {
  it('batches 250 texts by maxBatch 100 into 3 requests, keeping the order of the texts', async () => {
    const texts = Array.from({ length: 250 }, (_, i) => `t${i}`);
    // each answer lists its items in reverse: they are placed by `index`
    server.enqueue(
      ...[1, 2, 3].map(() => embedReply(vectorOf, { reversed: true, tokens: () => 2 })),
    );
    const model = embedder({ maxBatch: 100, pricePerMillionTokens: 0.5 });
    const result = await embedTexts(model, texts);
    expect(server.requests.map((r) => inputsOf(r).length)).toEqual([100, 100, 50]);
    expect(server.requests.flatMap(inputsOf)).toEqual(texts);
    expect(result.vectors).toHaveLength(250);
    expect(result.vectors.map((v) => v[0])).toEqual(texts.map((_, i) => i));
    expect(result.vectors[7]).toBeInstanceOf(Float32Array);
    expect(result.usage).toEqual({ inputTokens: 500 });
    expect(result.costUsd).toBeCloseTo((500 * 0.5) / 1e6, 15);
  });

  it('sends the model, the texts, base64 and the key; decodes base64 into exact float32 values', async () => {
    const vector = [0.1, -2.5, 3.25, 1e-7];
    server.enqueue({ json: embeddingsBody([base64Vector(vector)], { promptTokens: 3 }) });
    const { vectors, usage } = await embedder().embed(['hello there world'], {});
    expect(server.requests[0]?.url).toBe('/v1/embeddings');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key');
    expect(server.body()).toEqual({
      model: 'test-embed',
      input: ['hello there world'],
      encoding_format: 'base64',
      dimensions: 4,
    });
    expect(vectors[0]).toEqual(Float32Array.from(vector));
    expect(usage).toEqual({ inputTokens: 3 });
  });

  it('asks for JSON numbers with encodingFormat float, and reads them whatever it asked', async () => {
    server.enqueue(embedReply(vectorOf), embedReply(vectorOf, { alwaysFloat: true }));
    const float = await embedTexts(embedder({ encodingFormat: 'float' }), ['t1', 't2']);
    expect(server.body(0)['encoding_format']).toBe('float');
    const ignored = await embedTexts(embedder(), ['t3']);
    expect(server.body(1)['encoding_format']).toBe('base64');
    expect([...float.vectors[1]!]).toEqual([2, 1, 0.5, -0.25]);
    expect([...ignored.vectors[0]!]).toEqual([3, 1, 0.5, -0.25]);
  });

  it("knows OpenAI's models: their size, their price, and sends dimensions only when given", async () => {
    const small = embedder({ model: 'text-embedding-3-small', dimensions: undefined });
    expect(small).toMatchObject({
      name: 'text-embedding-3-small',
      dimensions: 1536,
      maxBatch: 2048,
      pricePerMillionTokens: 0.02,
    });
    const large = embedder({ model: 'text-embedding-3-large', dimensions: 256 });
    expect(large).toMatchObject({
      name: 'text-embedding-3-large:256',
      dimensions: 256,
      pricePerMillionTokens: 0.13,
    });
    expect(embedder({ model: 'text-embedding-3-large', dimensions: 3072 }).name).toBe(
      'text-embedding-3-large',
    );
    expect(embedder({ model: 'text-embedding-ada-002', dimensions: undefined })).toMatchObject({
      dimensions: 1536,
      pricePerMillionTokens: 0.1,
    });
    expect(embedder().pricePerMillionTokens).toBeUndefined(); // an unknown model is unpriced
    expect(embedder({ model: 'text-embedding-3-small', pricePerMillionTokens: 0 })).toMatchObject({
      pricePerMillionTokens: 0,
    });

    const unit = Array.from({ length: 1536 }, (_, i) => (i === 0 ? 1 : 0));
    server.enqueue(embedReply(() => unit, { tokens: () => 1_000_000 }));
    const embedded = await embedTexts(small, ['one']);
    expect(server.body()).not.toHaveProperty('dimensions');
    expect(embedded.vectors[0]).toHaveLength(1536);
    expect(embedded.costUsd).toBe(0.02);
  });

  it('keeps each request under 300,000 bytes of text (the API takes 300,000 tokens a request)', async () => {
    // 7 texts of 100,000 bytes, `t<i>` then padding: 3 fit in a request, a 4th would not
    const texts = Array.from({ length: 7 }, (_, i) => `t${i} `.padEnd(100_000, 'x'));
    server.enqueue(...[1, 2, 3].map(() => embedReply((t) => vectorOf(t.split(' ')[0]!))));
    const { vectors, usage } = await embedder().embed(texts, {});
    expect(server.requests.map((r) => inputsOf(r).length)).toEqual([3, 3, 1]);
    expect(vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(usage).toEqual({ inputTokens: 14 }); // two words each, summed over the requests
  });

  it('answers nothing for no texts without a request', async () => {
    expect(await embedder().embed([], {})).toEqual({ vectors: [], usage: { inputTokens: 0 } });
    expect(server.requests).toHaveLength(0);
  });

  it('uses a given client', async () => {
    const client = new OpenAI({ apiKey: 'client-key', baseURL: server.baseURL, maxRetries: 0 });
    server.enqueue(embedReply(vectorOf));
    const { vectors } = await embedTexts(openaiEmbedder({ model: 'x', dimensions: 4, client }), [
      't9',
    ]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer client-key');
    expect(vectors[0]?.[0]).toBe(9);
  });
});

describe('openaiEmbedder: failures', () => {
  it('a 401 echoing the key is a ModelError without the key anywhere', async () => {
    const key = `sk-test-${randomBytes(16).toString('hex')}`;
    server.enqueue({
      status: 401,
      error: `Incorrect API key provided: ${key}.`,
      headers: { 'x-request-id': 'req_401' },
    });
    const error = await failure(embedder({ apiKey: key }).embed(['hi'], {}));
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 401, requestId: 'req_401', retryable: false });
    expect(error.message).toContain(`Incorrect API key provided: ${REDACTED}`);
    expect(error.cause).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(shown(error)).not.toContain(key);
  });

  it('shows its key neither as JSON nor inspected, before or after its first call', async () => {
    const key = `sk-test-${randomBytes(16).toString('hex')}`;
    const model = embedder({ apiKey: key });
    expect(shown(model)).not.toContain(key);
    server.enqueue(embedReply(vectorOf));
    await model.embed(['t1'], {});
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    expect(shown(model)).not.toContain(key);
    expect(JSON.parse(JSON.stringify(model))).toMatchObject({ name: 'test-embed', dimensions: 4 });
  });

  it('a 429 is a retryable ModelError, after the retries asked for', async () => {
    server.enqueue(
      { status: 429, error: 'Rate limit reached', headers: { 'retry-after-ms': '0' } },
      { status: 429, error: 'Rate limit reached', headers: { 'retry-after-ms': '0' } },
    );
    const error = await failure(embedder({ maxRetries: 1 }).embed(['hi'], {}));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 429, retryable: true, code: 'MODEL_ERROR' });
    expect(error.cause).toBeInstanceOf(OpenAI.RateLimitError);
    expect(server.requests).toHaveLength(2);
  });

  it('rethrows cancellation through the signal unchanged', async () => {
    const controller = new AbortController();
    server.enqueue(() => controller.abort()); // aborts once the request arrived; never answers
    const error = await failure(embedder().embed(['hi'], { signal: controller.signal }));
    expect(error).not.toBeInstanceOf(ModelError);
    expect(error).toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it('needs a key or a base URL, dimensions for an unknown model, and valid options', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    expect(() => openaiEmbedder({ model: 'text-embedding-3-small' })).toThrow(
      /openaiEmbedder\(\) needs an API key/,
    );
    expect(() => openaiEmbedder({ model: 'nomic-embed-text', baseURL: server.baseURL })).toThrow(
      /option "dimensions" is required for "nomic-embed-text"/,
    );
    const bad: [Partial<OpenAIEmbedderOptions> | Record<string, unknown>, RegExp][] = [
      [{ model: '' }, /option "model" must be a non-empty string/],
      [{ dimensions: 0 }, /option "dimensions" must be a positive integer/],
      [{ maxBatch: 2049 }, /option "maxBatch" must be an integer from 1 to 2048/],
      [{ pricePerMillionTokens: -1 }, /option "pricePerMillionTokens"/],
      [{ encodingFormat: 'binary' }, /option "encodingFormat" must be "base64" or "float"/],
      [{ dimension: 4 }, /unknown option "dimension" \(did you mean "dimensions"\?\)/],
    ];
    for (const [options, message] of bad) {
      expect(() => embedder(options as Partial<OpenAIEmbedderOptions>)).toThrow(TypeError);
      expect(() => embedder(options as Partial<OpenAIEmbedderOptions>)).toThrow(message);
    }
  });

  it('a vector of the wrong dimension or holding NaN is InvalidEmbeddingError through embedTexts', async () => {
    server.enqueue(
      { json: embeddingsBody([base64Vector([1, 2, 3])]) },
      { json: embeddingsBody([base64Vector([1, Number.NaN, 3, 4])]) },
      { json: embeddingsBody([[1, 2, 3, 4, 5]]) },
    );
    const model = embedder();
    for (const problem of [
      /a vector of 3 dimensions, it declares 4/,
      /a vector holding NaN at 1/,
      /a vector of 5 dimensions, it declares 4/,
    ]) {
      const error = await failure(embedTexts(model, ['hi']));
      expect(error).toBeInstanceOf(InvalidEmbeddingError);
      expect(error).toMatchObject({ code: 'INVALID_EMBEDDING', embedder: 'test-embed' });
      expect(error.message).toMatch(problem);
    }
  });

  it('an answer that does not match the texts is InvalidEmbeddingError', async () => {
    const v = base64Vector([1, 2, 3, 4]);
    server.enqueue(
      { json: embeddingsBody([v]) },
      { json: embeddingsBody([v, v], { indexes: [0, 0] }) },
      { json: embeddingsBody([v, v], { indexes: [0, 2] }) },
      { json: embeddingsBody([Buffer.from([1, 2, 3, 4, 5]).toString('base64'), v]) },
      { json: embeddingsBody([{ not: 'a vector' } as unknown as string, v]) },
    );
    const model = embedder();
    for (const problem of [
      /answered 1 vectors for 2 texts/,
      /two vectors at index 0/,
      /a vector at index 2 for 2 texts/,
      /a base64 vector of 5 bytes/,
      /a vector that is neither base64 nor numbers/,
    ]) {
      const error = await failure(embedTexts(model, ['a', 'b']));
      expect(error).toBeInstanceOf(InvalidEmbeddingError);
      expect(error.message).toMatch(problem);
    }
  });
});
