import type OpenAI from 'openai';
import type { ModelRequest, ModelResponse, ModelStreamEvent } from './model.js';

/** One call of an {@link OpenAIApi}: the client, the request and the model's defaults. */
export interface OpenAIApiCall {
  client: OpenAI;
  request: ModelRequest;
  /** The model name sent when the request names none. */
  model: string;
  /** The model's own temperature, used when the request's settings have none. */
  temperature: number | undefined;
  requestOptions: OpenAI.RequestOptions;
}

/**
 * One OpenAI API `OpenAIModel` speaks (Chat Completions or Responses): it builds the request
 * body, calls the client and maps the answer. Failures are thrown as the SDK raised them; the
 * model wraps and redacts them.
 */
export interface OpenAIApi {
  generate(call: OpenAIApiCall): Promise<ModelResponse>;
  /** Deltas, then always a last `response` event. */
  stream(call: OpenAIApiCall): AsyncIterable<ModelStreamEvent>;
}

/**
 * Adds the provider-specific `extra` settings to a request body, as they are (they may set
 * any field the typed settings do not cover).
 */
export function withExtra<T extends object>(body: T, request: ModelRequest): T {
  const extra = request.settings?.extra;
  return extra ? { ...body, ...extra } : body;
}
