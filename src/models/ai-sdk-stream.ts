import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { ModelBehaviorError } from '../errors/run-errors.js';
import type { ToolCallItem } from '../items/item.js';
import type { FinishReason, ModelResponse, ModelStreamEvent, ModelUsage } from './model.js';
import { aiSdkModelError, mapAiSdkFinishReason, mapAiSdkUsage } from './ai-sdk-result.js';

type ToolCallDelta = Extract<ModelStreamEvent, { type: 'tool_call_delta' }>;

/**
 * Builds one {@link ModelResponse} out of the parts of an AI SDK stream. Text deltas are
 * concatenated. A tool call's input may arrive in pieces (`tool-input-start`, `-delta`,
 * `-end`, told apart by id) and then whole (`tool-call`, which wins), or only whole; either
 * way it is one call, numbered in the order it began. `finish` carries the usage and the
 * finish reason; an `error` part fails the answer.
 */
export class AiSdkStreamAccumulator {
  private text = '';
  private readonly calls = new Map<string, ToolCallItem>();
  private usage: ModelUsage | undefined;
  private finishReason: FinishReason = 'other';
  private modelId: string | undefined;

  constructor(private readonly fallbackModel: string) {}

  /** Takes one part; returns the stream events it gives rise to (possibly none). */
  add(part: LanguageModelV4StreamPart): ModelStreamEvent[] {
    if (part.type === 'text-delta') {
      if (part.delta === '') return [];
      this.text += part.delta;
      return [{ type: 'text_delta', delta: part.delta }];
    }
    if (part.type === 'tool-input-start') {
      return part.providerExecuted ? [] : [this.start(part.id, part.toolName, '')];
    }
    if (part.type === 'tool-input-delta') {
      const call = this.calls.get(part.id);
      if (!call) return [];
      call.arguments += part.delta;
      return [
        { type: 'tool_call_delta', index: this.indexOf(part.id), argumentsDelta: part.delta },
      ];
    }
    if (part.type === 'tool-call') {
      if (part.providerExecuted) return [];
      const known = this.calls.get(part.toolCallId);
      if (!known) return [this.start(part.toolCallId, part.toolName, part.input)];
      known.arguments = part.input; // the whole input is authoritative
      return [];
    }
    if (part.type === 'response-metadata') {
      if (part.modelId) this.modelId = part.modelId;
    } else if (part.type === 'finish') {
      this.usage = mapAiSdkUsage(part.usage);
      this.finishReason = mapAiSdkFinishReason(part.finishReason);
    } else if (part.type === 'error') {
      throw aiSdkModelError(part.error);
    }
    // Reasoning, sources, files and the like are not kept.
    return [];
  }

  /**
   * The complete answer.
   * @throws ModelBehaviorError when the stream ended without a `finish` part.
   */
  finish(): ModelResponse {
    if (!this.usage) throw new ModelBehaviorError('The model stream ended without finishing');
    const toolCalls = [...this.calls.values()];
    return {
      text: this.text === '' ? undefined : this.text,
      toolCalls,
      usage: this.usage,
      finishReason:
        this.finishReason === 'other' && toolCalls.length > 0 ? 'tool_calls' : this.finishReason,
      model: this.modelId ?? this.fallbackModel,
    };
  }

  private start(id: string, name: string, input: string): ToolCallDelta {
    this.calls.set(id, { type: 'tool_call', callId: id, name, arguments: input });
    return {
      type: 'tool_call_delta',
      index: this.indexOf(id),
      callId: id,
      name,
      argumentsDelta: input,
    };
  }

  private indexOf(id: string): number {
    return [...this.calls.keys()].indexOf(id);
  }
}
