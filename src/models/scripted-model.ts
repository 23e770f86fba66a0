import { ModelError, ScriptExhaustedError } from '../errors/run-errors.js';
import type { ToolCallItem } from '../items/item.js';
import {
  emptyUsage,
  type Model,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelUsage,
} from './model.js';
import type { ModelPrice } from './pricing.js';
import { parseReplay, replayAnswers } from './replay-file.js';

/** A scripted tool call; `arguments` may be an object (stringified) or raw text. */
export interface ScriptedToolCall {
  name: string;
  arguments?: Record<string, unknown> | string;
  callId?: string;
}

/** One scripted answer: text, tool calls, or an error to throw. */
export interface ScriptedResponse {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: Partial<ModelUsage>;
  /** Thrown instead of answering (as a `ModelError` if a string). */
  error?: Error | string;
}

export type Script =
  | ScriptedResponse[]
  | ((request: ModelRequest, callIndex: number) => ScriptedResponse | Promise<ScriptedResponse>);

export interface ScriptedModelOptions {
  /** @default 'scripted' */
  name?: string;
  /** Token counts reported when a response gives none. @default 10 in, 5 out */
  defaultUsage?: Partial<ModelUsage>;
  /**
   * Keep a copy of every request in `calls` (for tests that check what the model was sent).
   * Off by default: each copy grows with the conversation, so a long or busy run that kept
   * them all would spend time and memory that are not the runtime's. `callCount` counts calls
   * either way.
   * @default false
   * @example new ScriptedModel(script, { recordCalls: true }).calls
   */
  recordCalls?: boolean;
  /**
   * Its own price (see `Model.price`): a scripted model costs nothing unless told otherwise.
   * `null` gives it no price, like a local model the price table does not know.
   * @default 0 per million tokens
   */
  price?: ModelPrice | null;
}

export interface ReplayModelOptions extends ScriptedModelOptions {
  /**
   * The agent whose answers to give (a sub-agent's model, or the agent a run was handed off
   * to, gets its own `fromReplay` model).
   * @default the exported run's agent
   */
  agent?: string;
}

/**
 * A deterministic, offline model: a list of responses or a function of the request. Counts
 * its calls, and records a copy of every request with `recordCalls: true`; an unscripted call
 * throws `ScriptExhaustedError`. Default call ids derive from
 * the request (`call_<items>_<index>`), so they are the same in a resumed process.
 */
export class ScriptedModel implements Model {
  readonly name: string;
  readonly price: ModelPrice | undefined;
  private readonly script: Script;
  private readonly defaultUsage: ModelUsage;
  /** The requests received, when recording. */
  private readonly recorded: ModelRequest[] | undefined;
  private count = 0;

  constructor(script: Script, options: ScriptedModelOptions = {}) {
    this.script = script;
    this.name = options.name ?? 'scripted';
    this.price =
      options.price === null
        ? undefined
        : (options.price ?? { inputPerMillion: 0, outputPerMillion: 0 });
    this.defaultUsage = {
      ...emptyUsage(),
      inputTokens: 10,
      outputTokens: 5,
      ...options.defaultUsage,
    };
    this.recorded = options.recordCalls === true ? [] : undefined;
  }

  /**
   * A copy of every request received, in order. Only kept with `recordCalls: true`: reading
   * it otherwise throws a `TypeError` saying so (an empty list would pass a test that checks
   * nothing was sent).
   */
  get calls(): ModelRequest[] {
    if (!this.recorded) {
      throw new TypeError(
        'ScriptedModel.calls: requests are only recorded with `recordCalls: true` (use `callCount` to count calls)',
      );
    }
    return this.recorded;
  }

  /** How many calls the model received (recorded or not). */
  get callCount(): number {
    return this.count;
  }

  /**
   * A model that gives the answers a recorded run got, in order (see `exportReplay`): running
   * the replay's `run.input` again with the same tools reproduces the run, so a production
   * incident becomes a test. Call ids are the recorded ones, so decisions and results line up.
   * @param replay A replay file: its JSON text or the parsed value.
   * @throws InvalidReplayError for a file that is not a replay; TypeError for an `agent` with no
   *   answers in it.
   * @example
   * const model = ScriptedModel.fromReplay(await readFile('incident.json', 'utf8'));
   */
  static fromReplay(replay: unknown, options: ReplayModelOptions = {}): ScriptedModel {
    const file = parseReplay(replay);
    const { agent = file.run.agentName, ...rest } = options;
    const answers = replayAnswers(file, agent);
    if (answers.length === 0) {
      const agents = [...new Set(file.runs.flatMap((r) => r.modelCalls.map((c) => c.agent)))];
      throw new TypeError(
        `ScriptedModel.fromReplay(): the replay has no answers of agent "${agent}"; it has ${agents.map((a) => `"${a}"`).join(', ') || 'none'}`,
      );
    }
    const script = answers.map((answer): ScriptedResponse => ({
      ...(answer.text === undefined ? {} : { text: answer.text }),
      toolCalls: answer.toolCalls.map((c) => ({
        name: c.name,
        arguments: c.arguments,
        callId: c.callId,
      })),
      usage: {
        inputTokens: answer.usage.inputTokens,
        outputTokens: answer.usage.outputTokens,
        cachedTokens: answer.usage.cachedTokens,
        ...(answer.usage.reasoningTokens === undefined
          ? {}
          : { reasoningTokens: answer.usage.reasoningTokens }),
      },
    }));
    return new ScriptedModel(script, { name: `replay:${agent}`, ...rest });
  }

  async generate(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    if (options.signal?.aborted) throw options.signal.reason as Error;
    const index = this.count++;
    this.recorded?.push(structuredClone(request));
    let scripted: ScriptedResponse | undefined;
    if (Array.isArray(this.script)) {
      scripted = this.script[index];
      if (!scripted) throw new ScriptExhaustedError(index, this.script.length);
    } else {
      scripted = await this.script(request, index);
    }
    if (scripted.error !== undefined) {
      throw typeof scripted.error === 'string' ? new ModelError(scripted.error) : scripted.error;
    }
    return this.toResponse(scripted, request);
  }

  async *stream(
    request: ModelRequest,
    options: ModelCallOptions = {},
  ): AsyncIterable<ModelStreamEvent> {
    const response = await this.generate(request, options);
    for (const piece of (response.text ?? '').match(/\S+\s*/g) ?? []) {
      yield { type: 'text_delta', delta: piece };
    }
    for (const [index, call] of response.toolCalls.entries()) {
      yield {
        type: 'tool_call_delta',
        index,
        callId: call.callId,
        name: call.name,
        argumentsDelta: call.arguments,
      };
    }
    yield { type: 'response', response };
  }

  /** Throws unless every scripted response was used. */
  assertComplete(): void {
    if (Array.isArray(this.script) && this.count !== this.script.length) {
      throw new Error(
        `ScriptedModel used ${this.count} of ${this.script.length} scripted response(s)`,
      );
    }
  }

  private toResponse(scripted: ScriptedResponse, request: ModelRequest): ModelResponse {
    const toolCalls: ToolCallItem[] = (scripted.toolCalls ?? []).map((call, i) => ({
      type: 'tool_call',
      callId: call.callId ?? `call_${request.items.length}_${i}`,
      name: call.name,
      arguments:
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    return {
      text: scripted.text,
      toolCalls,
      usage: { ...this.defaultUsage, ...scripted.usage },
      finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      model: request.model ?? this.name,
    };
  }
}
