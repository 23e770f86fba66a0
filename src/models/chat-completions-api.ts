import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { ModelBehaviorError } from '../errors/run-errors.js';
import type { ToolCallItem } from '../items/item.js';
import { summaryMessage } from '../items/summary-message.js';
import { toChatContentParts } from './chat-content.js';
import type { ModelRequest, ModelResponse, ModelStreamEvent } from './model.js';
import type { ToolChoice } from './model-settings.js';
import { withExtra, type OpenAIApi, type OpenAIApiCall } from './openai-api.js';
import {
  StreamAccumulator,
  fallbackCallId,
  mapFinishReason,
  mapUsage,
} from './stream-accumulator.js';

/**
 * The Chat Completions API (`POST /chat/completions`), which OpenAI-compatible servers speak
 * too. Reasoning items in the history are skipped: this API has no way to take them back.
 */
export const chatCompletionsApi: OpenAIApi = {
  async generate(call) {
    const completion = await call.client.chat.completions.create(
      { ...buildParams(call), stream: false },
      call.requestOptions,
    );
    return toResponse(completion, call);
  },

  async *stream(call): AsyncGenerator<ModelStreamEvent, void, undefined> {
    const accumulator = new StreamAccumulator(call.request.model ?? call.model);
    const stream = await call.client.chat.completions.create(
      { ...buildParams(call), stream: true, stream_options: { include_usage: true } },
      call.requestOptions,
    );
    for await (const chunk of stream) {
      for (const event of accumulator.add(chunk)) yield event;
    }
    yield { type: 'response', response: accumulator.finish() };
  },
};

function toolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string'
    ? choice
    : { type: 'function', function: { name: choice.name } };
}

function buildParams({
  request,
  model,
  temperature,
}: OpenAIApiCall): ChatCompletionCreateParamsBase {
  const settings = request.settings ?? {};
  const params: ChatCompletionCreateParamsBase = {
    model: request.model ?? model,
    messages: toChatMessages(request),
  };
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    // Both are refused by the API without tools.
    if (settings.toolChoice !== undefined) params.tool_choice = toolChoice(settings.toolChoice);
    if (settings.parallelToolCalls !== undefined) {
      params.parallel_tool_calls = settings.parallelToolCalls;
    }
  }
  if (request.outputSchema) {
    params.response_format = {
      type: 'json_schema',
      json_schema: { name: 'output', schema: request.outputSchema, strict: false },
    };
  }
  const t = settings.temperature ?? temperature;
  if (t !== undefined) params.temperature = t;
  if (settings.topP !== undefined) params.top_p = settings.topP;
  if (request.maxOutputTokens !== undefined) {
    params.max_completion_tokens = request.maxOutputTokens;
  }
  if (settings.reasoningEffort !== undefined) params.reasoning_effort = settings.reasoningEffort;
  if (settings.seed !== undefined) params.seed = settings.seed;
  return withExtra(params, request);
}

function toResponse(completion: ChatCompletion, call: OpenAIApiCall): ModelResponse {
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
    model: completion.model || call.request.model || call.model,
    ...(completion.id ? { id: completion.id } : {}),
  };
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
 * summary item reads as a user message (see `summaryMessage`); reasoning items are left out.
 */
export function toChatMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  // The assistant message that following tool calls attach to, while still open.
  let open: ChatCompletionAssistantMessageParam | undefined;
  for (const item of request.items) {
    if (item.type === 'reasoning') continue;
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
