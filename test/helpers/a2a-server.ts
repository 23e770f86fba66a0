import { createServer, type Server } from 'node:http';
import { servedTools } from './chat-server.js';
import type { AddressInfo } from 'node:net';
import { Role, type Message, type SendMessageRequest } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import {
  Agent,
  type AgentOptions,
  type ModelCallOptions,
  type ModelRequest,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { createA2AHandler, toNodeListener, type A2AHandlerOptions } from '../../src/a2a.js';
import { deferred, type Deferred } from './async.js';
import { lastUserText } from './session-fixtures.js';
import { openTempStore, type TempStore } from './temp-store.js';

/** A scripted model that keeps the signal of its latest call. */
class SignalledModel extends ScriptedModel {
  signal: AbortSignal | undefined;
  override generate(request: ModelRequest, options: ModelCallOptions = {}) {
    this.signal = options.signal;
    return super.generate(request, options);
  }
}

/** What the A2A test server's model does, and the gate its "slow" answer waits on. */
export interface A2AScript {
  model: ScriptedModel;
  /** "slow": the model's answer waits until this resolves; `reached` once it waits. */
  gate: Deferred<void>;
  reached: Deferred<void>;
}

/**
 * A model that adds when asked "add", asks to pay when asked "pay" (the `pay` tool needs an
 * approval), answers "slow" only once `gate` opens ("slow add": adds, then answers once `gate`
 * opens), answers a tool result with it, and echoes anything else.
 */
export function a2aScript(): A2AScript {
  const gate = deferred();
  const reached = deferred();
  // The wait ends with the gate, or with the model call's signal (a cancelled run).
  const slow = async () => {
    reached.resolve();
    const signal = model.signal;
    await new Promise<void>((resolve, reject) => {
      void gate.promise.then(resolve);
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
    return { text: 'Slow but here.' };
  };
  const model = new SignalledModel(async (request) => {
    const last = request.items.at(-1);
    const said = lastUserText(request);
    if (said === 'slow' || (said === 'slow add' && last?.type === 'tool_result')) return slow();
    if (last?.type === 'tool_result') {
      return {
        text: last.name === 'add' ? `The sum is ${last.output}.` : `Pay said: ${last.output}`,
      };
    }
    if (said === 'add' || said === 'slow add') {
      return { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] };
    }
    if (said === 'pay') return { toolCalls: [{ name: 'pay', arguments: { amount: 500 } }] };
    return { text: `You said: ${said}` };
  });
  return { model, gate, reached };
}

export interface A2AServer extends A2AScript {
  temp: TempStore;
  agent: Agent;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The SDK's own client (`ClientFactory` with the JSON-RPC transport) as `user`. */
  client(user: string): Promise<Client>;
  /** A raw POST to the JSON-RPC URL as `user` (the body as it is if a string). */
  post(
    user: string | undefined,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
  close(): Promise<void>;
}

/**
 * An agent (tools `add` and `pay`, the second needing approval) served by `createA2AHandler`
 * on a real Node `http` server on 127.0.0.1, over a real LevelDB in a temp folder. The user
 * is the `x-user` header.
 */
export async function startA2AServer(
  handlerOptions: Partial<Omit<A2AHandlerOptions, 'agent' | 'card'>> = {},
  agentOptions: Pick<AgentOptions, 'telemetry'> = {},
): Promise<A2AServer> {
  const temp = await openTempStore();
  const script = a2aScript();
  const [add, pay] = servedTools();
  const agent = new Agent({
    name: 'assistant',
    model: script.model,
    tools: [add, pay],
    store: temp.store,
    ...agentOptions,
  });
  // The card names the URL, known once the server listens: listen first, then make the handler.
  let listener: ReturnType<typeof toNodeListener> = (_req, res) => res.end();
  const server: Server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = createA2AHandler({
    agent,
    userId: (request) => request.headers.get('x-user') ?? undefined,
    card: { url: `${origin}/a2a` },
    basePath: '/a2a',
    ...handlerOptions,
  });
  listener = toNodeListener(handler);
  return {
    ...script,
    temp,
    agent,
    origin,
    client: (user) => {
      const fetchImpl: typeof fetch = (input, init) =>
        fetch(input, { ...init, headers: { ...headersOf(init?.headers), 'x-user': user } });
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      });
      return factory.createFromUrl(`${origin}/a2a/.well-known/agent-card.json`, '');
    },
    post: (user, body, headers = {}) =>
      fetch(`${origin}/a2a`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          ...(user === undefined ? {} : { 'x-user': user }),
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await temp.cleanup();
    },
  };
}

function headersOf(headers: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(headers).entries());
}

/** A user message as the SDK's types spell it. */
export function userMessage(
  text: string,
  ids: { messageId: string; contextId?: string; taskId?: string },
  parts?: Message['parts'],
): Message {
  return {
    messageId: ids.messageId,
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: parts ?? [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A `SendMessage` request of one message. */
export function sendRequest(message: Message, returnImmediately = false): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately,
    },
    metadata: undefined,
  };
}
