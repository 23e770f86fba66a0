import type { ServerResponse } from 'node:http';
import type { Embedder } from '../../src/models/embedder.js';
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
  type RecordedRequest,
  type Reply,
} from './chat-completions-server.js';

/**
 * A fake embeddings server on 127.0.0.1 answering `POST /embeddings` from a queue of scripted
 * replies, recording every request: the Chat Completions test server on another route.
 */
export function startEmbeddingsServer(): Promise<ChatCompletionsServer> {
  return startChatCompletionsServer('/embeddings');
}

/** A vector as the API sends it with `encoding_format: 'base64'`: little-endian float32 bytes. */
export function base64Vector(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

/** The texts of a recorded embeddings request (`input`, always a list from the adapters). */
export function inputsOf(request: RecordedRequest): string[] {
  return request.body['input'] as string[];
}

/** An `embeddings` answer body: one item per vector, with its `index` (default: in order). */
export function embeddingsBody(
  vectors: readonly (readonly number[] | string)[],
  options: { promptTokens?: number; model?: string; indexes?: readonly number[] } = {},
) {
  return {
    object: 'list',
    model: options.model ?? 'text-embedding-3-small',
    data: vectors.map((embedding, i) => ({
      object: 'embedding',
      index: options.indexes?.[i] ?? i,
      embedding,
    })),
    usage: { prompt_tokens: options.promptTokens ?? 0, total_tokens: options.promptTokens ?? 0 },
  };
}

export interface EmbedReplyOptions {
  /** Tokens a text counts for the answer's `usage` (default: its word count). */
  tokens?: (text: string) => number;
  /** Answers the items in reverse order (each with its right `index`). */
  reversed?: boolean;
  /** Sends JSON numbers even when base64 was asked (a server that ignores the format). */
  alwaysFloat?: boolean;
}

/**
 * A reply that embeds each input of the request with `vectorOf`, in the encoding the request
 * asked for (base64 unless `float`), with usage summed over the inputs.
 */
export function embedReply(
  vectorOf: (text: string) => readonly number[],
  options: EmbedReplyOptions = {},
): Reply {
  const tokens = options.tokens ?? ((text: string) => text.split(/\s+/).filter(Boolean).length);
  return (request: RecordedRequest, res: ServerResponse) => {
    const texts = inputsOf(request);
    const float = options.alwaysFloat === true || request.body['encoding_format'] === 'float';
    const vectors = texts.map((text) => {
      const vector = vectorOf(text);
      return float ? [...vector] : base64Vector(vector);
    });
    const order = texts.map((_, i) => i);
    if (options.reversed) order.reverse();
    const body = embeddingsBody(
      order.map((i) => vectors[i]!),
      {
        model: String(request.body['model']),
        promptTokens: texts.reduce((sum, text) => sum + tokens(text), 0),
        indexes: order,
      },
    );
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}

/**
 * A reply that embeds the request's inputs with `embedder` (e.g. the scripted one, so texts that
 * share words are near), in the encoding asked for, with usage as the embedder counts it.
 */
export function embedWith(embedder: Embedder): Reply {
  return async (request: RecordedRequest, res: ServerResponse) => {
    const texts = inputsOf(request);
    const { vectors, usage } = await embedder.embed(texts, {});
    const float = request.body['encoding_format'] === 'float';
    const body = embeddingsBody(
      vectors.map((v) => (float ? [...v] : base64Vector([...v]))),
      { model: String(request.body['model']), promptTokens: usage.inputTokens },
    );
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}
