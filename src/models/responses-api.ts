import type {
  Response,
  ResponseCreateParamsBase,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import { ModelBehaviorError, ModelError } from '../errors/run-errors.js';
import type { UserContentPart } from '../items/content-part.js';
import type { ReasoningItem, ToolCallItem } from '../items/item.js';
import { summaryMessage } from '../items/summary-message.js';
import {
  emptyUsage,
  type FinishReason,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelUsage,
} from './model.js';
import { withExtra, type OpenAIApi, type OpenAIApiCall } from './openai-api.js';
import { fallbackCallId } from './stream-accumulator.js';

/**
 * The Responses API (`POST /responses`), used without server-side state: every request has
 * `store: false`, carries the whole (windowed) history and never a `previous_response_id`.
 * Reasoning items come back with their encrypted content (`include`), are stored in the
 * history like any item and passed back in the next request, as the API requires for
 * reasoning models calling tools.
 */
export const responsesApi: OpenAIApi = {
  async generate(call) {
    const response = await call.client.responses.create(
      { ...buildParams(call), stream: false },
      call.requestOptions,
    );
    return toResponse(response, call);
  },

  async *stream(call): AsyncGenerator<ModelStreamEvent, void, undefined> {
    const stream = await call.client.responses.create(
      { ...buildParams(call), stream: true },
      call.requestOptions,
    );
    // A function call's place among the answer's tool calls, by its output index.
    const toolIndex = new Map<number, number>();
    let final: Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') {
        if (event.delta !== '') yield { type: 'text_delta', delta: event.delta };
      } else if (event.type === 'response.output_item.added') {
        const item = event.item;
        if (item.type !== 'function_call') continue;
        const index = toolIndex.size;
        toolIndex.set(event.output_index, index);
        yield {
          type: 'tool_call_delta',
          index,
          callId: item.call_id,
          name: item.name,
          argumentsDelta: item.arguments ?? '',
        };
      } else if (event.type === 'response.function_call_arguments.delta') {
        const index = toolIndex.get(event.output_index);
        if (index !== undefined) {
          yield { type: 'tool_call_delta', index, argumentsDelta: event.delta };
        }
      } else if (event.type === 'response.completed' || event.type === 'response.incomplete') {
        final = event.response;
      } else if (event.type === 'response.failed') {
        throw failure(event.response);
      } else if (event.type === 'error') {
        throw new ModelError(`The model stream failed: ${event.message}`, {
          retryable: event.code === 'server_error' || event.code === 'rate_limit_exceeded',
        });
      }
    }
    if (!final) throw new ModelBehaviorError('The model stream ended without a response');
    yield { type: 'response', response: toResponse(final, call) };
  },
};

function buildParams({ request, model, temperature }: OpenAIApiCall): ResponseCreateParamsBase {
  const settings = request.settings ?? {};
  const params: ResponseCreateParamsBase = {
    model: request.model ?? model,
    input: toResponsesInput(request),
  };
  if (request.instructions) params.instructions = request.instructions;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
    // Both are refused by the API without tools.
    const choice = settings.toolChoice;
    if (choice !== undefined) {
      params.tool_choice =
        typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
    }
    if (settings.parallelToolCalls !== undefined) {
      params.parallel_tool_calls = settings.parallelToolCalls;
    }
  }
  if (request.outputSchema) {
    params.text = {
      format: { type: 'json_schema', name: 'output', schema: request.outputSchema, strict: false },
    };
  }
  const t = settings.temperature ?? temperature;
  if (t !== undefined) params.temperature = t;
  if (settings.topP !== undefined) params.top_p = settings.topP;
  if (request.maxOutputTokens !== undefined) params.max_output_tokens = request.maxOutputTokens;
  if (settings.reasoningEffort !== undefined) {
    params.reasoning = { effort: settings.reasoningEffort };
  }
  return statelessBody(withExtra(params, request));
}

/**
 * The request body with server-side state off whatever `extra` said: `store: false`, no
 * `previous_response_id` or `conversation`, and the encrypted reasoning asked back (beside any
 * other `include` of `extra`).
 */
function statelessBody(body: ResponseCreateParamsBase): ResponseCreateParamsBase {
  const { previous_response_id: _previous, conversation: _conversation, include, ...rest } = body;
  const wanted = include ?? [];
  return {
    ...rest,
    store: false,
    include: wanted.includes('reasoning.encrypted_content')
      ? wanted
      : [...wanted, 'reasoning.encrypted_content'],
  };
}

/**
 * Maps our conversation to Responses input items: messages, `function_call` and
 * `function_call_output` items, and reasoning items with their encrypted content (one without
 * it cannot be resolved statelessly and is left out).
 */
export function toResponsesInput(request: ModelRequest): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const item of request.items) {
    if (item.type === 'reasoning') {
      if (item.encryptedContent === undefined) continue;
      input.push({
        type: 'reasoning',
        id: item.id ?? '',
        encrypted_content: item.encryptedContent,
        summary: (item.summary ?? []).map((text) => ({ type: 'summary_text', text })),
      });
    } else if (item.type === 'tool_call') {
      input.push({
        type: 'function_call',
        call_id: item.callId,
        name: item.name,
        arguments: item.arguments,
      });
    } else if (item.type === 'tool_result') {
      input.push({ type: 'function_call_output', call_id: item.callId, output: item.output });
    } else {
      const message = item.type === 'summary' ? summaryMessage(item) : item;
      const content = message.content;
      input.push(
        message.role === 'user' && typeof content !== 'string'
          ? { role: 'user', content: content.map(toInputContent) }
          : { role: message.role, content: content as string },
      );
    }
  }
  return input;
}

/** A base64 payload as a `data:` URL. */
const dataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

/** A user message part as Responses input content: input_text, input_image, input_file. */
function toInputContent(part: UserContentPart): ResponseInputContent {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  if (part.type === 'image') {
    const url = 'url' in part ? part.url : dataUrl(part.mediaType, part.data);
    return { type: 'input_image', image_url: url, detail: part.detail ?? 'auto' };
  }
  if ('fileId' in part) {
    return {
      type: 'input_file',
      file_id: part.fileId,
      ...(part.filename === undefined ? {} : { filename: part.filename }),
    };
  }
  return {
    type: 'input_file',
    file_data: dataUrl(part.mediaType, part.data),
    filename: part.filename,
  };
}

function toReasoningItem(item: Extract<ResponseOutputItem, { type: 'reasoning' }>): ReasoningItem {
  const summary = (item.summary ?? []).map((s) => s.text);
  return {
    type: 'reasoning',
    ...(item.id ? { id: item.id } : {}),
    ...(typeof item.encrypted_content === 'string'
      ? { encryptedContent: item.encrypted_content }
      : {}),
    ...(summary.length > 0 ? { summary } : {}),
  };
}

function toResponse(response: Response, call: OpenAIApiCall): ModelResponse {
  if (response.status === 'failed') throw failure(response);
  const reasoning: ReasoningItem[] = [];
  const toolCalls: ToolCallItem[] = [];
  let text = '';
  let refusal = '';
  for (const item of response.output ?? []) {
    if (item.type === 'reasoning') {
      reasoning.push(toReasoningItem(item));
    } else if (item.type === 'function_call') {
      toolCalls.push({
        type: 'tool_call',
        callId: item.call_id || fallbackCallId(),
        name: item.name,
        arguments: item.arguments ?? '',
      });
    } else if (item.type === 'message') {
      for (const part of item.content ?? []) {
        if (part.type === 'output_text') text += part.text;
        else if (part.type === 'refusal') refusal += part.refusal;
      }
    }
  }
  const refused = refusal === '' ? undefined : refusal;
  return {
    text: refused ?? (text === '' ? undefined : text),
    toolCalls,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    usage: mapResponsesUsage(response.usage),
    finishReason: finishReason(response, toolCalls.length > 0, refused),
    refusal: refused,
    model: response.model || call.request.model || call.model,
    ...(response.id ? { id: response.id } : {}),
  };
}

function finishReason(
  response: Response,
  calledTools: boolean,
  refusal: string | undefined,
): FinishReason {
  if (refusal !== undefined) return 'refusal';
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    if (reason === 'max_output_tokens') return 'length';
    if (reason === 'content_filter') return 'content_filter';
    return 'other';
  }
  if (response.status === 'completed' || response.status === undefined) {
    return calledTools ? 'tool_calls' : 'stop';
  }
  return 'other';
}

/** Responses token counts: cached input and reasoning output tokens are parts of the totals. */
export function mapResponsesUsage(usage: ResponseUsage | null | undefined): ModelUsage {
  if (!usage) return emptyUsage();
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cachedTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  };
}

/** The error of a response the server reports as failed. */
function failure(response: Response): ModelError {
  const error = response.error;
  const message = error ? `${error.code}: ${error.message}` : 'no reason given';
  return new ModelError(`The model response failed: ${message}`, {
    retryable: error?.code === 'server_error' || error?.code === 'rate_limit_exceeded',
  });
}
