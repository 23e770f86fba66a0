import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { AgentStateError } from '../errors/agentstate-error.js';
import { ModelError } from '../errors/run-errors.js';
import type { ToolCallItem } from '../items/item.js';
import type { FinishReason, ModelUsage } from './model.js';

/** Maps an AI SDK finish reason (`{ unified, raw }`) to ours. */
export function mapAiSdkFinishReason(
  reason: LanguageModelV4FinishReason | undefined,
): FinishReason {
  switch (reason?.unified) {
    case 'stop':
    case 'length':
      return reason.unified;
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    case 'error':
    case 'interrupted':
    case 'other':
    case undefined:
      return 'other';
  }
}

/** Maps AI SDK usage: cache reads are our cached tokens, reasoning ones are part of the output. */
export function mapAiSdkUsage(usage: LanguageModelV4Usage | undefined): ModelUsage {
  const reasoning = usage?.outputTokens.reasoning;
  return {
    inputTokens: usage?.inputTokens.total ?? 0,
    outputTokens: usage?.outputTokens.total ?? 0,
    cachedTokens: usage?.inputTokens.cacheRead ?? 0,
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

/** A tool call our runtime executes (provider-executed ones already ran at the provider). */
export function toToolCallItem(
  part: Extract<LanguageModelV4Content, { type: 'tool-call' }>,
): ToolCallItem | undefined {
  if (part.providerExecuted) return undefined;
  return { type: 'tool_call', callId: part.toolCallId, name: part.toolName, arguments: part.input };
}

/** The AI SDK's `APICallError`, recognised by shape (the package is only a type import). */
interface ApiCallErrorShape {
  name: string;
  message: string;
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
}

function isApiCallError(error: unknown): error is ApiCallErrorShape {
  return error instanceof Error && error.name === 'AI_APICallError';
}

/**
 * What a failed AI SDK call throws: an `APICallError` becomes a {@link ModelError} with its
 * status, retryability and request id; any other failure a ModelError with it as `cause`.
 */
export function aiSdkModelError(error: unknown): ModelError {
  if (isApiCallError(error)) {
    const headers = error.responseHeaders ?? {};
    const requestId = headers['x-request-id'] ?? headers['request-id'];
    return new ModelError(`The model request failed: ${error.message}`, {
      status: error.statusCode,
      retryable: error.isRetryable,
      requestId,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`The model request failed: ${message}`, { cause: error });
}

/**
 * What an AI SDK adapter (model or embedder) throws for a failed call: aborts pass unchanged,
 * our own errors too, anything else becomes a {@link ModelError} ({@link aiSdkModelError}).
 */
export function aiSdkFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  if (error instanceof AgentStateError) return error;
  return aiSdkModelError(error);
}
