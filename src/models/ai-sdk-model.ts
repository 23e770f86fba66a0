import type {
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Message,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';
import {
  aiSdkFailure,
  mapAiSdkFinishReason,
  mapAiSdkUsage,
  toToolCallItem,
} from './ai-sdk-result.js';
import { toCallOptions } from './ai-sdk-request.js';
import { AiSdkStreamAccumulator } from './ai-sdk-stream.js';
import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from './model.js';
import type { ModelPrice } from './pricing.js';
import type { ToolCallItem } from '../items/item.js';

/** A language model of the AI SDK provider specification, version 3 or 4. */
export type AiSdkLanguageModel = LanguageModelV4 | LanguageModelV3;

/** Options of {@link aiSdkModel}. */
export interface AiSdkModelOptions {
  /**
   * The name used for pricing and display.
   * @default the model's `modelId`
   */
  name?: string | undefined;
  /** The model's price; it wins over the agent's price table (see `Model.price`). */
  price?: ModelPrice | undefined;
}

const AI_SDK_MODEL_OPTION_NAMES = optionNames<AiSdkModelOptions>({ name: true, price: true });

/**
 * Adapts an AI SDK language model (`@ai-sdk/provider` specification v3 or v4: the models of
 * `@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/mistral`, `@ai-sdk/amazon-bedrock`, Ollama
 * providers, ...) to {@link Model}. The prompt, tools (JSON Schema), output schema and model
 * settings are mapped to the call options (`extra` becomes `providerOptions`, keyed by
 * provider; `reasoningEffort` is sent to v4 models only; `parallelToolCalls` has no standard
 * field: pass it in `extra`); text, tool calls (streamed in pieces or whole), usage and
 * finish reasons are mapped back. The model's reasoning parts are not kept in the history.
 *
 * Failures surface as {@link ModelError} (an `APICallError`'s `statusCode`, `isRetryable`
 * and `x-request-id` as `status`, `retryable` and `requestId`); cancellation through
 * `options.signal` is rethrown unchanged.
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * const agent = new Agent({ name: 'a', model: aiSdkModel(anthropic('claude-sonnet-4-5')) });
 */
export function aiSdkModel(model: AiSdkLanguageModel, options: AiSdkModelOptions = {}): Model {
  return new AiSdkModel(model, options);
}

class AiSdkModel implements Model {
  readonly name: string;
  readonly provider: string;
  readonly price: ModelPrice | undefined;
  private readonly model: LanguageModelV4;
  private readonly v4: boolean;

  constructor(model: AiSdkLanguageModel, options: AiSdkModelOptions) {
    const version = isObject(model) ? model['specificationVersion'] : undefined;
    if (
      (version !== 'v3' && version !== 'v4') ||
      typeof model.doGenerate !== 'function' ||
      typeof model.doStream !== 'function'
    ) {
      throw new TypeError(
        `aiSdkModel(): the model must be an AI SDK language model of specification v3 or v4 (doGenerate and doStream functions), got ${isObject(model) ? `specification ${String(version)}` : typeof model}`,
      );
    }
    new OptionChecker('aiSdkModel()', options, AI_SDK_MODEL_OPTION_NAMES)
      .nonEmptyString('name')
      .object('price');
    // v3 and v4 share the shapes used here; v3 has no `reasoning` option (left out below).
    this.model = model as LanguageModelV4;
    this.v4 = version === 'v4';
    this.name = options.name ?? model.modelId;
    this.provider = model.provider;
    this.price = options.price;
  }

  async generate(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    let result: LanguageModelV4GenerateResult;
    try {
      result = await this.model.doGenerate(this.callOptions(request, options));
    } catch (error) {
      throw aiSdkFailure(error, options.signal);
    }
    let text = '';
    const toolCalls: ToolCallItem[] = [];
    for (const part of result.content) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'tool-call') {
        const call = toToolCallItem(part);
        if (call) toolCalls.push(call);
      }
    }
    return {
      text: text === '' ? undefined : text,
      toolCalls,
      usage: mapAiSdkUsage(result.usage),
      finishReason: mapAiSdkFinishReason(result.finishReason),
      model: result.response?.modelId ?? request.model ?? this.name,
    };
  }

  async *stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncGenerator<ModelStreamEvent, void, undefined> {
    const accumulator = new AiSdkStreamAccumulator(request.model ?? this.name);
    let response: ModelResponse;
    try {
      const result: LanguageModelV4StreamResult = await this.model.doStream(
        this.callOptions(request, options),
      );
      const reader = result.stream.getReader();
      let done = false;
      try {
        while (!done) {
          const next = await reader.read();
          done = next.done;
          if (!next.done) for (const event of accumulator.add(next.value)) yield event;
        }
      } finally {
        // Left early (an error part, the caller stopped reading): stop the provider's stream.
        if (!done) await reader.cancel().catch(() => undefined);
        reader.releaseLock();
      }
      options.signal?.throwIfAborted();
      response = accumulator.finish();
    } catch (error) {
      throw aiSdkFailure(error, options.signal);
    }
    yield { type: 'response', response };
  }

  private callOptions(
    request: ModelRequest,
    options: ModelCallOptions,
  ): LanguageModelV4CallOptions {
    const call = toCallOptions(request, options.signal);
    if (this.v4) return call;
    delete call.reasoning;
    return { ...call, prompt: call.prompt.map(v3Message) };
  }
}

/** A v3 file part holds its data or URL directly, not tagged as v4 does. */
function v3Message(message: LanguageModelV4Message): LanguageModelV4Message {
  if (message.role !== 'user') return message;
  const content = message.content.map((part) => {
    if (part.type !== 'file') return part;
    const data =
      part.data.type === 'url' ? part.data.url : 'data' in part.data ? part.data.data : part.data;
    return { ...part, data } as unknown as typeof part;
  });
  return { ...message, content };
}
