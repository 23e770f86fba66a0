import type { Attributes } from '@opentelemetry/api';
import type { Item } from '../items/item.js';
import { contentText } from '../items/item.js';
import { AGENTSTATE, GEN_AI, OPERATION } from './gen-ai-attributes.js';

/** A model call as its `chat` span describes it. */
export interface ChatCall {
  provider: string;
  model: string;
  instructions?: string | undefined;
  items: readonly Item[];
  /** The call's cost in USD once it answered (undefined: unknown). */
  costOf?: ((answer: ChatAnswer) => number | undefined) | undefined;
}

/** What a `chat` span records of the answer (a `ModelResponse`). */
export interface ChatAnswer {
  model: string;
  id?: string | undefined;
  finishReason: string;
  text: string | undefined;
  toolCalls: readonly { callId: string; name: string; arguments: string }[];
  usage: {
    inputTokens: number;
    outputTokens: number;
    cachedTokens: number;
    reasoningTokens?: number | undefined;
  };
}

type Content = ((text: string) => string) | undefined;

/**
 * A `chat` span's attributes: the request's before the call, the answer's after it. Message
 * content only with `content` (the app opted in), passed through it (redaction).
 */
export function chatAttributes(
  call: ChatCall,
  answer: ChatAnswer | undefined,
  content: Content,
): Attributes {
  if (!answer) {
    return {
      [GEN_AI.operationName]: OPERATION.chat,
      [GEN_AI.providerName]: call.provider,
      [GEN_AI.requestModel]: call.model,
      ...(content
        ? {
            [GEN_AI.inputMessages]: content(JSON.stringify(call.items.map(messageOf))),
            ...(call.instructions
              ? {
                  [GEN_AI.systemInstructions]: content(
                    JSON.stringify([{ type: 'text', content: call.instructions }]),
                  ),
                }
              : {}),
          }
        : {}),
    };
  }
  const cost = call.costOf?.(answer);
  return {
    [GEN_AI.responseModel]: answer.model,
    ...(answer.id ? { [GEN_AI.responseId]: answer.id } : {}),
    [GEN_AI.finishReasons]: [answer.finishReason],
    [GEN_AI.inputTokens]: answer.usage.inputTokens,
    [GEN_AI.outputTokens]: answer.usage.outputTokens,
    [GEN_AI.cacheReadInputTokens]: answer.usage.cachedTokens,
    ...(answer.usage.reasoningTokens === undefined
      ? {}
      : { [GEN_AI.reasoningOutputTokens]: answer.usage.reasoningTokens }),
    ...(cost === undefined ? {} : { [AGENTSTATE.costUsd]: cost }),
    ...(content
      ? {
          [GEN_AI.outputMessages]: content(
            JSON.stringify([
              {
                role: 'assistant',
                parts: [
                  ...(answer.text ? [{ type: 'text', content: answer.text }] : []),
                  ...answer.toolCalls.map(toolCallPart),
                ],
                finish_reason: answer.finishReason,
              },
            ]),
          ),
        }
      : {}),
  };
}

const toolCallPart = (c: { callId: string; name: string; arguments: string }) => ({
  type: 'tool_call',
  id: c.callId,
  name: c.name,
  arguments: c.arguments,
});

/** An item in the conventions' message form (`{ role, parts }`). */
function messageOf(item: Item): { role: string; parts: unknown[] } {
  switch (item.type) {
    case 'message':
      return { role: item.role, parts: [{ type: 'text', content: contentText(item.content) }] };
    case 'tool_call':
      return { role: 'assistant', parts: [toolCallPart(item)] };
    case 'tool_result':
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: item.callId, response: item.output }],
      };
    case 'summary':
      return { role: 'user', parts: [{ type: 'text', content: item.content }] };
    case 'reasoning':
      return { role: 'assistant', parts: [{ type: 'reasoning' }] };
  }
}
