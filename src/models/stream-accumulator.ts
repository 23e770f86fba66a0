import { randomUUID } from 'node:crypto';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { ModelBehaviorError } from '../errors/run-errors.js';
import type { ToolCallItem } from '../items/item.js';
import {
  emptyUsage,
  type FinishReason,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelUsage,
} from './model.js';

/**
 * Maps a Chat Completions `finish_reason` to ours. A refusal wins over whatever the server
 * reported, since a refused answer usually still says `stop`.
 */
export function mapFinishReason(reason: string | null | undefined, refusal?: string): FinishReason {
  if (refusal !== undefined && refusal !== '') return 'refusal';
  switch (reason) {
    case 'stop':
    case 'tool_calls':
    case 'length':
    case 'content_filter':
      return reason;
    case null:
    case undefined:
    default:
      return 'other';
  }
}

/** Maps Chat Completions token counts to ours (`cachedTokens` is 0 when not reported). */
export function mapUsage(usage: CompletionUsage | null | undefined): ModelUsage {
  if (!usage) return emptyUsage();
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

/** A call id for servers that leave it out (some OpenAI-compatible servers do). */
export function fallbackCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

interface PartialToolCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Builds one {@link ModelResponse} out of streamed Chat Completions chunks.
 *
 * Text and refusal deltas are concatenated; tool calls are collected by their `index` (the
 * id and name arrive in the first delta of a call, the argument text is split across many);
 * the usage usually arrives in a last chunk with no choices. Only the first choice is read.
 * Pure apart from inventing a call id when the server sends none.
 */
export class StreamAccumulator {
  private text = '';
  private refusal = '';
  private readonly toolCalls = new Map<number, PartialToolCall>();
  private lastToolIndex: number | undefined;
  private finishReason: string | null | undefined;
  private usage: CompletionUsage | null | undefined;
  private model: string | undefined;
  private id: string | undefined;
  private sawChoice = false;

  /** @param fallbackModel reported as the model name when no chunk names one. */
  constructor(private readonly fallbackModel: string) {}

  /** Takes one chunk; returns the stream events it gives rise to (possibly none). */
  add(chunk: ChatCompletionChunk): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    if (chunk.model && this.model === undefined) this.model = chunk.model;
    if (chunk.id && this.id === undefined) this.id = chunk.id;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
    if (!choice) return events;
    this.sawChoice = true;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.text += delta.content;
      events.push({ type: 'text_delta', delta: delta.content });
    }
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    for (const call of delta.tool_calls ?? []) events.push(this.addToolCallDelta(call));
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  private addToolCallDelta(
    call: ChatCompletionChunk.Choice.Delta.ToolCall,
  ): Extract<ModelStreamEvent, { type: 'tool_call_delta' }> {
    // `index` is required by the protocol; tolerate servers that omit it.
    const index =
      typeof call.index === 'number'
        ? call.index
        : call.id !== undefined || this.lastToolIndex === undefined
          ? this.toolCalls.size
          : this.lastToolIndex;
    this.lastToolIndex = index;
    let entry = this.toolCalls.get(index);
    if (!entry) {
      entry = { id: undefined, name: '', arguments: '' };
      this.toolCalls.set(index, entry);
    }
    const event: Extract<ModelStreamEvent, { type: 'tool_call_delta' }> = {
      type: 'tool_call_delta',
      index,
      argumentsDelta: call.function?.arguments ?? '',
    };
    if (call.id && entry.id === undefined) {
      entry.id = call.id;
      event.callId = call.id;
    }
    const name = call.function?.name;
    if (name && entry.name === '') {
      entry.name = name;
      event.name = name;
    }
    entry.arguments += event.argumentsDelta;
    return event;
  }

  /**
   * The complete answer.
   * @throws ModelBehaviorError when the stream carried no answer at all.
   */
  finish(): ModelResponse {
    if (!this.sawChoice) {
      throw new ModelBehaviorError('The model stream ended without any answer');
    }
    const refusal = this.refusal === '' ? undefined : this.refusal;
    const toolCalls: ToolCallItem[] = [...this.toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({
        type: 'tool_call',
        callId: call.id ?? fallbackCallId(),
        name: call.name,
        arguments: call.arguments,
      }));
    return {
      text: refusal ?? (this.text === '' ? undefined : this.text),
      toolCalls,
      usage: mapUsage(this.usage),
      finishReason: mapFinishReason(this.finishReason, refusal),
      refusal,
      model: this.model ?? this.fallbackModel,
      ...(this.id ? { id: this.id } : {}),
    };
  }
}
