import type { RunContext } from '../core/run-context.js';
import type { Item, ReasoningItem, ToolCallItem } from '../items/item.js';
import type { ModelSettings } from './model-settings.js';
import type { ModelPrice } from './pricing.js';

/** What the model is told about one tool. `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One request to a model. */
export interface ModelRequest {
  /** System instructions, already resolved for the run's context. */
  instructions?: string | undefined;
  /**
   * The conversation so far, oldest first, through the agent's context window (`history`):
   * a window may leave older items out, and a summary arrives as a user message.
   */
  items: Item[];
  tools: ToolSpec[];
  /** JSON Schema the final answer must follow, when the agent has an `outputType`. */
  outputSchema?: Record<string, unknown> | undefined;
  /** Overrides the model's configured model name (e.g. a session's `changeModel`). */
  model?: string | undefined;
  /**
   * Most tokens the answer may have: set from what the run's token budget has left (the
   * OpenAI adapter sends it as `max_completion_tokens`), or the run's
   * `modelSettings.maxOutputTokens` when that is lower. Absent: the model's own limit.
   */
  maxOutputTokens?: number | undefined;
  /**
   * The run's model settings (agent's merged with the run's). Their `maxOutputTokens` is
   * already folded into `maxOutputTokens` above, which is the one to send.
   */
  settings?: ModelSettings | undefined;
}

/** Token counts of one model call. */
export interface ModelUsage {
  /** All input tokens, the cached ones included. */
  inputTokens: number;
  /** All output tokens, the reasoning ones included. */
  outputTokens: number;
  /** The input tokens read from the provider's prompt cache (part of `inputTokens`). */
  cachedTokens: number;
  /** The output tokens spent reasoning (part of `outputTokens`), when the model reports them. */
  reasoningTokens?: number | undefined;
}

export type FinishReason =
  'stop' | 'tool_calls' | 'length' | 'content_filter' | 'refusal' | 'other';

/** One complete model answer. */
export interface ModelResponse {
  /** Assistant text, if any. */
  text: string | undefined;
  /** Tool calls requested, in order. */
  toolCalls: ToolCallItem[];
  /**
   * Reasoning items of a reasoning model (Responses API), stored in the history before the
   * answer's text and tool calls and passed back with the next request.
   */
  reasoning?: ReasoningItem[] | undefined;
  usage: ModelUsage;
  finishReason: FinishReason;
  /** Set when the model refused; the text then holds the refusal. */
  refusal?: string | undefined;
  /** The model name that answered, for pricing. */
  model: string;
  /** The provider's id of the answer (`gen_ai.response.id`), when it gives one. */
  id?: string | undefined;
  /**
   * The answer's cost in USD as the provider reported it (a remote agent's run, say), used
   * instead of pricing its tokens. Absent: the price of `model` applies.
   */
  costUsd?: number | undefined;
}

/** Incremental events of a streamed model answer; the last one is always `response`. */
export type ModelStreamEvent =
  | { type: 'text_delta'; delta: string }
  | {
      type: 'tool_call_delta';
      index: number;
      callId?: string;
      name?: string;
      argumentsDelta: string;
    }
  | { type: 'response'; response: ModelResponse };

export interface ModelCallOptions {
  signal?: AbortSignal | undefined;
  /**
   * The RunContext of the run the call is for (a sub-agent run's own), set by the runtime: an
   * adapter that talks to a stateful service derives stable ids from it.
   */
  context?: RunContext | undefined;
  /**
   * The W3C trace context of the call's span (`traceparent`, `tracestate`), set when telemetry
   * records one, for an adapter that passes it on.
   */
  trace?: { traceparent: string; tracestate?: string | undefined } | undefined;
}

/** The small interface every model adapter implements. */
export interface Model {
  /** Model name used for pricing and display. */
  readonly name: string;
  /**
   * The provider serving the model, as telemetry names it (`gen_ai.provider.name`, e.g.
   * `openai`). Absent: `unknown`.
   */
  readonly provider?: string | undefined;
  /**
   * The model's own price, used for all its answers: it wins over the agent's price table
   * (which prices the answers of a model without one, by their model name). Absent, and the
   * table does not list the name: such answers have no known cost.
   */
  readonly price?: ModelPrice | undefined;
  generate(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
  stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamEvent>;
}

export const emptyUsage = (): ModelUsage => ({ inputTokens: 0, outputTokens: 0, cachedTokens: 0 });

/** The provider a model names for telemetry (the wrapped model's, for a wrapper). */
export const providerOf = (model: Model): string => model.provider ?? 'unknown';
