import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { AgentStateError } from '../errors/agentstate-error.js';
import { redactDeep, redactSecrets, type Redact } from '../errors/redact-deep.js';
import { ModelBehaviorError, ModelError } from '../errors/run-errors.js';
import type { ToolCallItem } from '../items/item.js';
import { summaryMessage } from '../items/summary-message.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from './model.js';
import { toChatContentParts } from './chat-content.js';
import type { ModelPrice } from './pricing.js';
import { redactingLogger } from './redacting-logger.js';
import {
  StreamAccumulator,
  fallbackCallId,
  mapFinishReason,
  mapUsage,
} from './stream-accumulator.js';

/** Options of {@link OpenAIModel}. */
export interface OpenAIModelOptions {
  /** Model name sent with every request, e.g. `gpt-4.1-mini` or `llama3.1:8b`. */
  model: string;
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
   * Sampling temperature.
   * @default not sent (the server's default)
   */
  temperature?: number | undefined;
  /**
   * The model's price, for a model the agent's price table does not list (a local or
   * self-hosted model). Without one, such a model's cost is unknown (`costUsd: undefined`).
   * @example { inputPerMillion: 0, outputPerMillion: 0 } // Ollama on your own machine
   */
  price?: ModelPrice | undefined;
}

const DEFAULT_MAX_RETRIES = 2;

const OPENAI_MODEL_OPTION_NAMES = optionNames<OpenAIModelOptions>({
  model: true,
  apiKey: true,
  baseURL: true,
  price: true,
  maxRetries: true,
  timeoutMs: true,
  client: true,
  temperature: true,
});

/**
 * {@link Model} on the official `openai` package, using Chat Completions with tools. Works
 * with the OpenAI API and with OpenAI-compatible servers (through `baseURL`).
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
 */
export class OpenAIModel implements Model {
  readonly name: string;
  readonly price: ModelPrice | undefined;
  private readonly client: OpenAI;
  private readonly options: OpenAIModelOptions;

  /**
   * @throws TypeError for an unknown option name (naming the closest valid one), an empty
   *   `model`, a negative or fractional `maxRetries`, a `timeoutMs` that is not a positive
   *   integer, or a negative `temperature`.
   */
  constructor(options: OpenAIModelOptions) {
    new OptionChecker('new OpenAIModel()', options ?? null, OPENAI_MODEL_OPTION_NAMES)
      .nonEmptyString('model', true)
      .string('apiKey')
      .string('baseURL')
      .nonNegativeInteger('maxRetries')
      .positiveInteger('timeoutMs')
      .check('client', 'an OpenAI client', (v) => isObject(v) && isObject(v['chat']))
      .nonNegativeNumber('temperature');
    this.options = options;
    this.name = options.model;
    this.price = options.price;
    this.client = options.client ?? createClient(options, () => this.redact());
  }

  async generate(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    let completion: ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        { ...this.buildParams(request), stream: false },
        this.requestOptions(options),
      );
    } catch (error) {
      throw this.failure(error, options.signal);
    }
    return this.toResponse(completion, request);
  }

  async *stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncGenerator<ModelStreamEvent, void, undefined> {
    const accumulator = new StreamAccumulator(request.model ?? this.name);
    try {
      const stream = await this.client.chat.completions.create(
        { ...this.buildParams(request), stream: true, stream_options: { include_usage: true } },
        this.requestOptions(options),
      );
      for await (const chunk of stream) {
        for (const event of accumulator.add(chunk)) yield event;
      }
      // The SDK ends an aborted stream silently; a cut-off answer must not look complete.
      options.signal?.throwIfAborted();
    } catch (error) {
      throw this.failure(error, options.signal);
    }
    yield { type: 'response', response: accumulator.finish() };
  }

  /** What a failed call throws: aborts unchanged, anything else a ModelError without secrets. */
  private failure(error: unknown, signal: AbortSignal | undefined): unknown {
    if (isAbort(error, signal)) return error;
    return redactDeep(toModelError(error, signal), this.redact());
  }

  /** Removes the client's API key and credential header values (read now: keys may rotate). */
  private redact(): Redact {
    return redactSecrets([this.options.apiKey, this.client.apiKey, ...headerSecrets(this.client)]);
  }

  private buildParams(request: ModelRequest): ChatCompletionCreateParamsBase {
    const params: ChatCompletionCreateParamsBase = {
      model: request.model ?? this.name,
      messages: toChatMessages(request),
    };
    if (request.tools.length > 0) {
      params.tools = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
    }
    if (request.outputSchema) {
      params.response_format = {
        type: 'json_schema',
        json_schema: { name: 'output', schema: request.outputSchema, strict: false },
      };
    }
    if (this.options.temperature !== undefined) params.temperature = this.options.temperature;
    if (request.maxOutputTokens !== undefined) {
      params.max_completion_tokens = request.maxOutputTokens;
    }
    return params;
  }

  private requestOptions(options: ModelCallOptions): OpenAI.RequestOptions {
    const result: OpenAI.RequestOptions = {};
    if (options.signal) result.signal = options.signal;
    if (this.options.maxRetries !== undefined) result.maxRetries = this.options.maxRetries;
    if (this.options.timeoutMs !== undefined) result.timeout = this.options.timeoutMs;
    return result;
  }

  private toResponse(completion: ChatCompletion, request: ModelRequest): ModelResponse {
    const choice = completion.choices?.[0];
    if (!choice?.message) {
      throw new ModelBehaviorError('The model answered without any choice');
    }
    const message = choice.message;
    const refusal = message.refusal ? message.refusal : undefined;
    const text = refusal ?? (message.content ? message.content : undefined);
    return {
      text,
      toolCalls: (message.tool_calls ?? []).map(toToolCallItem),
      usage: mapUsage(completion.usage),
      finishReason: mapFinishReason(choice.finish_reason, refusal),
      refusal,
      model: completion.model || request.model || this.name,
    };
  }
}

function createClient(options: OpenAIModelOptions, redact: () => Redact): OpenAI {
  let apiKey = options.apiKey || process.env['OPENAI_API_KEY'] || undefined;
  const baseURL = options.baseURL || process.env['OPENAI_BASE_URL'] || undefined;
  if (apiKey === undefined) {
    if (baseURL === undefined) {
      throw new ModelError(
        'OpenAIModel needs an API key: pass `apiKey` or set OPENAI_API_KEY (or pass `baseURL` for a local server)',
      );
    }
    apiKey = 'no-key';
  }
  return new OpenAI({
    apiKey,
    baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    logger: redactingLogger(globalThis.console, redact),
  });
}

/** Header names whose values are credentials. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'api-key', 'x-api-key']);

/**
 * Values of credential headers the client sends with every request (a gateway's own
 * `Authorization`, Azure's `api-key`). The SDK keeps them in a protected field; read it
 * defensively, as it is not part of its typed API.
 */
function headerSecrets(client: OpenAI): string[] {
  const headers = (client as unknown as { _options?: { defaultHeaders?: unknown } })._options
    ?.defaultHeaders;
  if (!headers || typeof headers !== 'object') return [];
  const entries: [string, unknown][] =
    headers instanceof Headers
      ? [...headers.entries()]
      : Array.isArray(headers)
        ? headers.filter((e): e is [string, unknown] => Array.isArray(e))
        : Object.entries(headers);
  return entries.flatMap(([name, value]) => {
    if (!CREDENTIAL_HEADERS.has(String(name).toLowerCase()) || typeof value !== 'string') return [];
    // `Bearer <token>`: the token alone, too, in case a message quotes it without the scheme
    const token = value.replace(/^\S+\s+/, '');
    return token === value ? [value] : [value, token];
  });
}

function toToolCallItem(call: ChatCompletionMessageToolCall): ToolCallItem {
  const callId = call.id || fallbackCallId();
  if (call.type === 'custom') {
    return { type: 'tool_call', callId, name: call.custom.name, arguments: call.custom.input };
  }
  return {
    type: 'tool_call',
    callId,
    name: call.function.name,
    arguments: call.function.arguments ?? '',
  };
}

/**
 * Maps our conversation to Chat Completions messages. Consecutive tool calls (and the
 * assistant text right before them, which came from the same answer) become one assistant
 * message with `tool_calls`; tool results become `tool` messages; user messages with parts
 * carry `image_url` / `file` content parts; developer and system items keep their role; a
 * summary item reads as a user message (see `summaryMessage`).
 */
export function toChatMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  // The assistant message that following tool calls attach to, while still open.
  let open: ChatCompletionAssistantMessageParam | undefined;
  for (const item of request.items) {
    if (item.type === 'tool_call') {
      if (!open) {
        open = { role: 'assistant', content: null };
        messages.push(open);
      }
      (open.tool_calls ??= []).push({
        id: item.callId,
        type: 'function',
        function: { name: item.name, arguments: item.arguments },
      });
      continue;
    }
    const message = item.type === 'summary' ? summaryMessage(item) : item;
    if (message.type === 'tool_result') {
      open = undefined;
      messages.push({ role: 'tool', tool_call_id: message.callId, content: message.output });
    } else if (message.role === 'user') {
      open = undefined;
      const content = message.content;
      messages.push({
        role: 'user',
        content: typeof content === 'string' ? content : toChatContentParts(content),
      });
    } else if (message.role === 'developer' || message.role === 'system') {
      open = undefined;
      messages.push({ role: message.role, content: message.content });
    } else {
      open = { role: 'assistant', content: message.content };
      messages.push(open);
    }
  }
  return messages;
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  if (error instanceof OpenAI.APIUserAbortError) return true;
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * Whether the SDK would retry this answer: the server's `x-should-retry` header decides, else
 * 408, 409, 429 and 5xx are worth another try.
 */
function retryableStatus(status: number, headers: Headers | undefined): boolean {
  const says = headers?.get('x-should-retry');
  if (says === 'true' || says === 'false') return says === 'true';
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Wraps anything the SDK throws into a {@link ModelError} with the facts it has (`status`,
 * `requestId`, `retryable`); aborts pass through unchanged. Secrets are not removed here: the
 * adapter redacts what this returns.
 */
export function toModelError(error: unknown, signal?: AbortSignal): unknown {
  if (isAbort(error, signal)) return error;
  if (error instanceof AgentStateError) return error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    const message = `The model request timed out: ${error.message}`;
    return new ModelError(message, { cause: error, retryable: true });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const message = `Could not reach the model server: ${error.message}`;
    return new ModelError(message, { cause: error, retryable: true });
  }
  if (error instanceof OpenAI.APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    return new ModelError(`The model request failed: ${error.message}`, {
      status,
      requestId: error.requestID ?? undefined,
      retryable:
        status === undefined
          ? undefined
          : retryableStatus(status, error.headers as Headers | undefined),
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`The model request failed: ${message}`, { cause: error });
}
