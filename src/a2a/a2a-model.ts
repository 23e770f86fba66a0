import { TaskState, type AgentCard, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { findRunContext } from '../core/run-context-storage.js';
import { RemoteAgentError } from '../errors/remote-agent-error.js';
import type { Item, ToolCallItem, ToolResultItem } from '../items/item.js';
import {
  emptyUsage,
  type Model,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
} from '../models/model.js';
import {
  answerOf,
  approvalsIn,
  decisionParts,
  stateName,
  textOf,
  textPart,
  usageOf,
  userMessage,
  type A2AApproval,
  type A2AUsage,
} from './a2a-convention.js';
import {
  sendAndSettle,
  settle,
  taskOfContext,
  type Exchange,
  type Settled,
} from './remote-task.js';

/** The tool a remote agent's `input-required` becomes in the local run (needing approval). */
export const REMOTE_INPUT_TOOL = 'remote_input';

/** What the `remote_input` call carries: the question, and what the next step needs. */
export interface RemoteInputArgs {
  question: string;
  approvals: A2AApproval[];
  taskId: string;
  /**
   * Which question it is (its status message's id and the calls it lists): a task that still
   * shows it has not read the answer yet; one asking again shows another.
   */
  questionId: string;
  /** The task's usage so far (already counted by the local run). */
  usage: A2AUsage;
}

/** Where the remote agent is and how to reach it. */
export interface A2AModelOptions {
  /** The local name of the remote agent (errors and telemetry). */
  name: string;
  url?: string | undefined;
  card?: AgentCard | undefined;
  headers?: Record<string, string> | undefined;
  fetch?: typeof fetch | undefined;
  /** @default 1000 */
  pollMs?: number | undefined;
}

/**
 * The model of a remote agent's local `Agent`: each model step is one exchange with the
 * remote task of its run. Its identity comes from the journaled ids (context id: the run's id;
 * message id: the run's id and the step), so a step started again after a crash finds the
 * task its first try sent, and follows it instead of sending again.
 */
export class A2AModel implements Model {
  readonly name: string;
  readonly provider = 'a2a';
  private readonly options: A2AModelOptions;
  private client: Promise<Client> | undefined;

  constructor(options: A2AModelOptions) {
    this.options = options;
    this.name = `a2a:${options.name}`;
  }

  async generate(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const context = options.context ?? findRunContext();
    if (!context?.runId) {
      throw new TypeError(
        `remoteAgent("${this.options.name}"): its model answers inside a run only (run the agent, or call it as a sub-agent)`,
      );
    }
    const contextId = context.runId;
    const messageId = `${context.runId}-${request.items.length}`;
    const ex: Exchange = {
      client: await this.clientOnce(),
      options: {
        ...(options.signal ? { signal: options.signal } : {}),
        serviceParameters: { ...this.options.headers, ...options.trace },
      },
      pollMs: this.options.pollMs ?? 1000,
    };
    const asked = askedOf(request.items);
    const settled = asked
      ? await this.answer(ex, contextId, messageId, asked)
      : await this.start(ex, contextId, messageId, lastUserText(request.items));
    return this.response(settled, request, asked?.args.usage);
  }

  async *stream(
    request: ModelRequest,
    options?: ModelCallOptions,
  ): AsyncIterable<ModelStreamEvent> {
    const response = await this.generate(request, options);
    if (response.text) yield { type: 'text_delta', delta: response.text };
    yield { type: 'response', response };
  }

  /** The first step: the run's input, sent once (a task in the context means it was sent). */
  private async start(
    ex: Exchange,
    contextId: string,
    messageId: string,
    input: string,
  ): Promise<Settled> {
    const sent = await taskOfContext(ex, contextId);
    if (sent) return { task: await settle(ex, sent.id, () => false) };
    return sendAndSettle(ex, userMessage({ messageId, contextId }, [textPart(input)]), () => false);
  }

  /** A later step: the decision on the remote task's question, sent once. */
  private async answer(
    ex: Exchange,
    contextId: string,
    messageId: string,
    asked: { args: RemoteInputArgs; result: ToolResultItem },
  ): Promise<Settled> {
    const { args, result } = asked;
    // The task still shows the question this step answers.
    const isStale = (task: Task) =>
      task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED &&
      questionIdOf(task) === args.questionId;
    const current = await ex.client.getTask({ tenant: '', id: args.taskId }, ex.options);
    const received = current.history.some((m) => m.messageId === messageId);
    if (received || !isStale(current)) return { task: await settle(ex, args.taskId, isStale) };
    const decision = result.isError === true ? 'reject' : 'approve';
    const message = result.isError === true ? result.output : undefined;
    const parts = decisionParts(args.approvals, decision, message);
    return sendAndSettle(
      ex,
      userMessage({ messageId, contextId, taskId: args.taskId }, parts),
      isStale,
    );
  }

  private response(
    settled: Settled,
    request: ModelRequest,
    before: A2AUsage | undefined,
  ): ModelResponse {
    const model = request.model ?? this.name;
    if ('message' in settled) {
      const text = textOf(settled.message.parts);
      return { text, toolCalls: [], usage: emptyUsage(), finishReason: 'stop', model };
    }
    const { task } = settled;
    const total = usageOf(task);
    const usage = {
      ...emptyUsage(),
      inputTokens: Math.max(0, total.inputTokens - (before?.inputTokens ?? 0)),
      outputTokens: Math.max(0, total.outputTokens - (before?.outputTokens ?? 0)),
    };
    const cost =
      total.costUsd === undefined ? undefined : Math.max(0, total.costUsd - (before?.costUsd ?? 0));
    const base = { usage, model, id: task.id, ...(cost === undefined ? {} : { costUsd: cost }) };
    const state = task.status?.state;
    if (state === TaskState.TASK_STATE_COMPLETED) {
      return { ...base, text: answerOf(task), toolCalls: [], finishReason: 'stop' };
    }
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      const status = task.status?.message;
      const args: RemoteInputArgs = {
        question: textOf(status?.parts) || 'The remote agent asks for input',
        approvals: approvalsIn(status),
        taskId: task.id,
        questionId: questionIdOf(task),
        usage: total,
      };
      const call: ToolCallItem = {
        type: 'tool_call',
        callId: `input_${request.items.length}_${task.id}`.slice(0, 120),
        name: REMOTE_INPUT_TOOL,
        arguments: JSON.stringify(args),
      };
      return { ...base, text: undefined, toolCalls: [call], finishReason: 'tool_calls' };
    }
    throw new RemoteAgentError(this.options.name, {
      taskId: task.id,
      state: stateName(state),
      reason: textOf(task.status?.message?.parts) || undefined,
    });
  }

  /** The client, made once (a failed attempt, e.g. the card unreachable, is tried again). */
  private clientOnce(): Promise<Client> {
    this.client ??= this.connect().catch((error: unknown) => {
      this.client = undefined;
      throw error;
    });
    return this.client;
  }

  private async connect(): Promise<Client> {
    const fetchImpl = this.options.fetch;
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory(fetchImpl ? { fetchImpl } : {})],
      cardResolver: new DefaultAgentCardResolver(fetchImpl ? { fetchImpl } : {}),
    });
    return this.options.card
      ? factory.createFromAgentCard(this.options.card)
      : factory.createFromUrl(cardUrlOf(this.options.url!), '');
  }
}

/** The text of the run's last user message (the sub-agent call's input). */
function lastUserText(items: readonly Item[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.type === 'message' && item.role === 'user') {
      return typeof item.content === 'string'
        ? item.content
        : item.content.map((p) => ('text' in p ? p.text : '')).join('\n');
    }
  }
  return '';
}

/** The remote question the request's last item answers, if it answers one. */
function askedOf(
  items: readonly Item[],
): { args: RemoteInputArgs; result: ToolResultItem } | undefined {
  const last = items.at(-1);
  if (last?.type !== 'tool_result' || last.name !== REMOTE_INPUT_TOOL) return undefined;
  const call = items.find(
    (i): i is ToolCallItem => i.type === 'tool_call' && i.callId === last.callId,
  );
  if (!call) return undefined;
  return { args: JSON.parse(call.arguments) as RemoteInputArgs, result: last };
}

/**
 * A question's identity: its status message's id with the calls it lists (an agentstate server
 * gives every question of a task one message id, and each question its own calls).
 */
function questionIdOf(task: Task): string {
  const message = task.status?.message;
  const calls = approvalsIn(message).map((a) => a.callId);
  return [message?.messageId ?? '', ...calls].join(' ');
}

/** Where the card of the agent at `url` is: under it (a card's own URL is kept). */
const cardUrlOf = (url: string): string =>
  url.endsWith('.json') ? url : `${url.replace(/\/+$/, '')}/.well-known/agent-card.json`;
