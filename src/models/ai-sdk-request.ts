import type {
  JSONValue,
  LanguageModelV4CallOptions,
  LanguageModelV4FilePart,
  LanguageModelV4TextPart,
  LanguageModelV4Message,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import { ModelBehaviorError } from '../errors/run-errors.js';
import type { UserContentPart } from '../items/content-part.js';
import { summaryMessage } from '../items/summary-message.js';
import type { ModelRequest } from './model.js';

/**
 * Builds the call options of an AI SDK language model (`doGenerate` / `doStream`) from our
 * request: the prompt, the tools as function tools with their JSON Schemas, the output schema
 * as a JSON response format, and the model settings. `parallelToolCalls` has no field in the
 * specification (set it through `extra`, e.g. `{ openai: { parallelToolCalls: false } }`);
 * `extra` is passed as `providerOptions`.
 */
export function toCallOptions(
  request: ModelRequest,
  signal: AbortSignal | undefined,
): LanguageModelV4CallOptions {
  const settings = request.settings ?? {};
  const options: LanguageModelV4CallOptions = { prompt: toPrompt(request) };
  if (request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters,
    }));
    const choice = settings.toolChoice;
    if (choice !== undefined) {
      options.toolChoice =
        typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
    }
  }
  if (request.outputSchema) {
    options.responseFormat = { type: 'json', schema: request.outputSchema, name: 'output' };
  }
  if (settings.temperature !== undefined) options.temperature = settings.temperature;
  if (settings.topP !== undefined) options.topP = settings.topP;
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens;
  if (settings.seed !== undefined) options.seed = settings.seed;
  if (settings.reasoningEffort !== undefined) options.reasoning = settings.reasoningEffort;
  if (settings.extra) options.providerOptions = settings.extra as SharedV4ProviderOptions;
  if (signal) options.abortSignal = signal;
  return options;
}

/**
 * A user message part as an AI SDK prompt part: text, or a file part (images too) holding the
 * URL or the base64 data. A provider file id has no place in the specification.
 */
function toUserPart(part: UserContentPart): LanguageModelV4TextPart | LanguageModelV4FilePart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if ('fileId' in part) {
    throw new ModelBehaviorError(
      `aiSdkModel: a file given by provider id ("${part.fileId}") cannot be sent to an AI SDK model; pass its data`,
    );
  }
  if ('url' in part) {
    return { type: 'file', mediaType: 'image/*', data: { type: 'url', url: new URL(part.url) } };
  }
  const file: LanguageModelV4FilePart = {
    type: 'file',
    mediaType: part.mediaType,
    data: { type: 'data', data: part.data },
  };
  if (part.type === 'file') file.filename = part.filename;
  return file;
}

/** A tool call's input as the prompt carries it: the parsed JSON, or the raw text if invalid. */
function parsedInput(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Maps our conversation to an AI SDK prompt: the instructions as a system message, user
 * messages, assistant messages holding the answer's text and tool calls, and tool messages
 * holding consecutive tool results. Reasoning items (another API's) are left out.
 */
export function toPrompt(request: ModelRequest): LanguageModelV4Message[] {
  const prompt: LanguageModelV4Message[] = [];
  if (request.instructions) prompt.push({ role: 'system', content: request.instructions });
  // The message the next assistant part or tool result joins, while still open.
  let open: LanguageModelV4Message | undefined;
  for (const item of request.items) {
    if (item.type === 'reasoning') continue;
    if (item.type === 'tool_result') {
      const part: LanguageModelV4ToolResultPart = {
        type: 'tool-result',
        toolCallId: item.callId,
        toolName: item.name,
        output: item.isError
          ? { type: 'error-text', value: item.output }
          : { type: 'text', value: item.output },
      };
      if (open?.role !== 'tool') {
        open = { role: 'tool', content: [] };
        prompt.push(open);
      }
      open.content.push(part);
      continue;
    }
    if (item.type === 'summary' || (item.type === 'message' && item.role === 'user')) {
      open = undefined;
      const content = (item.type === 'summary' ? summaryMessage(item) : item).content;
      prompt.push({
        role: 'user',
        content:
          typeof content === 'string' ? [{ type: 'text', text: content }] : content.map(toUserPart),
      });
      continue;
    }
    if (item.type === 'message' && (item.role === 'developer' || item.role === 'system')) {
      // The specification has no developer role: both are system messages.
      open = undefined;
      prompt.push({ role: 'system', content: item.content });
      continue;
    }
    // Text right before tool calls came from the same answer: one assistant message.
    if (open?.role !== 'assistant' || item.type === 'message') {
      open = { role: 'assistant', content: [] };
      prompt.push(open);
    }
    open.content.push(
      item.type === 'message'
        ? { type: 'text', text: item.content }
        : {
            type: 'tool-call',
            toolCallId: item.callId,
            toolName: item.name,
            input: parsedInput(item.arguments) as JSONValue,
          },
    );
  }
  return prompt;
}
