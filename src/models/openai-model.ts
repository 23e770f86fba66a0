import type OpenAI from 'openai';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from './model.js';
import type { OpenAIApi, OpenAIApiCall } from './openai-api.js';
import { OpenAIConnection } from './openai-connection.js';
import type { ModelPrice } from './pricing.js';

/** Options of {@link OpenAIModel}. */
export interface OpenAIModelOptions {
  /** Model name sent with every request, e.g. `gpt-4.1-mini` or `llama3.1:8b`. */
  model: string;
  /**
   * Which API to call: `chat-completions` (`POST /chat/completions`, also spoken by
   * OpenAI-compatible servers) or `responses` (`POST /responses`: reasoning items kept in the
   * history and passed back, reasoning-token usage). The Responses API is used statelessly
   * (`store: false`, never `previous_response_id`): the session history is sent every time.
   * @default 'chat-completions'
   */
  api?: 'chat-completions' | 'responses' | undefined;
  /**
   * API key. Ignored when `client` is given.
   * @default process.env.OPENAI_API_KEY; with a `baseURL` and no key anywhere, a placeholder
   *   (local OpenAI-compatible servers usually need none)
   */
  apiKey?: string | undefined;
  /**
   * Base URL of an OpenAI-compatible server, e.g. `http://localhost:11434/v1` (Ollama),
   * `http://localhost:8000/v1` (vLLM), `http://localhost:8080/v1` (llama.cpp) or
   * `http://localhost:1234/v1` (LM Studio). Ignored when `client` is given.
   * @default process.env.OPENAI_BASE_URL, else `https://api.openai.com/v1`
   */
  baseURL?: string | undefined;
  /**
   * How often the SDK retries connection errors, 408, 409, 429 and 5xx answers (it honours
   * `retry-after` headers).
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * Timeout of one HTTP attempt in milliseconds.
   * @default the SDK's default (10 minutes)
   */
  timeoutMs?: number | undefined;
  /**
   * An already configured `OpenAI` client (e.g. an `AzureOpenAI`). `maxRetries` and
   * `timeoutMs`, when given, still apply per request.
   * @default a new client built from `apiKey` and `baseURL`
   */
  client?: OpenAI | undefined;
  /**
   * Sampling temperature of this model; a run's `modelSettings.temperature` wins over it.
   * @default not sent (the server's default)
   */
  temperature?: number | undefined;
  /**
   * The model's price; it wins over the agent's price table (e.g. a negotiated rate, or a
   * local or self-hosted model the table does not list). Without one, the table's entry for
   * the answer's model name; without either, its cost is unknown (`costUsd: undefined`).
   * @example { inputPerMillion: 0, outputPerMillion: 0 } // Ollama on your own machine
   */
  price?: ModelPrice | undefined;
}

const OPENAI_MODEL_OPTION_NAMES = optionNames<OpenAIModelOptions>({
  model: true,
  api: true,
  apiKey: true,
  baseURL: true,
  price: true,
  maxRetries: true,
  timeoutMs: true,
  client: true,
  temperature: true,
});

/**
 * {@link Model} on the official `openai` package, using Chat Completions (default) or the
 * Responses API (`api: 'responses'`) with tools. Works with the OpenAI API and with
 * OpenAI-compatible servers (through `baseURL`).
 *
 * Model settings map to `temperature`, `top_p`, `max_completion_tokens` /
 * `max_output_tokens`, `tool_choice`, `parallel_tool_calls` (these two only when the agent has
 * tools), `reasoning_effort` / `reasoning.effort` and `seed` (Chat Completions only: the
 * Responses API has none); `extra` is merged into the request body.
 *
 * Every failure surfaces as a {@link ModelError} (with the HTTP `status`, the server's
 * `requestId`, whether it is `retryable`, and the SDK error as `cause`), except cancellation
 * through `options.signal`, which is rethrown unchanged so callers can tell it apart (the SDK's
 * `APIUserAbortError`, or the signal's `reason` when a stream is cut off; `signal.aborted` is
 * true either way).
 *
 * No secret leaves the adapter: the API key and the values of `Authorization` / `api-key`
 * headers are removed from every error (message, stack, cause chain, nested fields such as the
 * response body and headers) and, for a client the adapter creates, from what the SDK logs.
 *
 * The `openai` package, and the adapter's code for the API it speaks, are loaded at the first
 * call, not when agentstate is imported: an app that uses another model does not pay for
 * loading them.
 */
export class OpenAIModel implements Model {
  readonly name: string;
  readonly provider = 'openai';
  readonly price: ModelPrice | undefined;
  private readonly options: OpenAIModelOptions;
  private readonly apiKind: 'responses' | 'chat';
  /** The client, its lazy loading and the redaction of its failures. */
  private readonly connection: OpenAIConnection;
  private loading: Promise<{ client: OpenAI; api: OpenAIApi }> | undefined;

  /**
   * @throws TypeError for an unknown option name (naming the closest valid one), an empty
   *   `model`, an unknown `api`, a negative or fractional `maxRetries`, a `timeoutMs` that is
   *   not a positive integer, or a negative `temperature`.
   */
  constructor(options: OpenAIModelOptions) {
    const api = isObject(options) && options['api'] === 'responses' ? 'responses' : 'chat';
    new OptionChecker('new OpenAIModel()', options ?? null, OPENAI_MODEL_OPTION_NAMES)
      .nonEmptyString('model', true)
      .check('api', '"chat-completions" or "responses"', (v) =>
        ['chat-completions', 'responses'].includes(v as string),
      )
      .string('apiKey')
      .string('baseURL')
      .nonNegativeInteger('maxRetries')
      .positiveInteger('timeoutMs')
      .check('client', 'an OpenAI client', (v) => isObject(v) && isObject(v[api]))
      .nonNegativeNumber('temperature');
    this.options = options;
    this.name = options.model;
    this.price = options.price;
    this.apiKind = api;
    this.connection = new OpenAIConnection('OpenAIModel', options);
  }

  async generate(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    try {
      const { api, call } = await this.call(request, options);
      return await api.generate(call);
    } catch (error) {
      throw this.connection.failure(error, options.signal);
    }
  }

  async *stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncGenerator<ModelStreamEvent, void, undefined> {
    let last: ModelStreamEvent | undefined;
    try {
      const { api, call } = await this.call(request, options);
      for await (const event of api.stream(call)) {
        if (event.type === 'response') last = event;
        else yield event;
      }
      // The SDK ends an aborted stream silently; a cut-off answer must not look complete.
      options.signal?.throwIfAborted();
    } catch (error) {
      throw this.connection.failure(error, options.signal);
    }
    if (last) yield last;
  }

  private async call(
    request: ModelRequest,
    options: ModelCallOptions,
  ): Promise<{ api: OpenAIApi; call: OpenAIApiCall }> {
    const { client, api } = await this.load();
    const call = {
      client,
      request,
      model: this.name,
      temperature: this.options.temperature,
      requestOptions: this.connection.requestOptions(options.signal),
    };
    return { api, call };
  }

  /** Loads the `openai` package (and builds the client) and the API's adapter at the first call. */
  private load(): Promise<{ client: OpenAI; api: OpenAIApi }> {
    this.loading ??= Promise.all([this.connection.load(), this.loadApi()]).then(
      ([client, api]) => ({ client, api }),
    );
    return this.loading;
  }

  private async loadApi(): Promise<OpenAIApi> {
    return this.apiKind === 'responses'
      ? (await import('./responses-api.js')).responsesApi
      : (await import('./chat-completions-api.js')).chatCompletionsApi;
  }
}
