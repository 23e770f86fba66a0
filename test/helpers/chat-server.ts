import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { Agent, tool, type AgentOptions, type Item } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { createChatHandler, toNodeListener, type ChatHandlerOptions } from '../../src/http.js';
import { openTempStore, type TempStore } from './temp-store.js';
import { lastUserText } from './session-fixtures.js';

/** The last item a request sent the model. */
const lastItem = (items: readonly Item[]) => items[items.length - 1];

/**
 * A model that adds when asked "add", asks to pay when asked "pay" (the `pay` tool needs an
 * approval), answers a tool result with it, and echoes anything else.
 */
export function chatModel(): ScriptedModel {
  return new ScriptedModel((request) => {
    const last = lastItem(request.items);
    if (last?.type === 'tool_result') {
      return {
        text: last.name === 'add' ? `The sum is ${last.output}.` : `Pay said: ${last.output}`,
      };
    }
    const said = lastUserText(request);
    if (said === 'add')
      return { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 }, callId: 'add_1' }] };
    if (said === 'pay')
      return { toolCalls: [{ name: 'pay', arguments: { amount: 5 }, callId: 'pay_1' }] };
    return { text: `You said: ${said}` };
  });
}

export interface ChatServer {
  temp: TempStore;
  model: ScriptedModel;
  agent: Agent;
  /** The server's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /**
   * A fetch of the server as `user` (the `x-user` header the resolver reads); a body is sent as
   * JSON (`content-type: application/json`) unless `init.headers` says otherwise.
   */
  as(user: string | undefined, path: string, init?: RequestInit): Promise<Response>;
  /** `DefaultChatTransport` of `user` posting to `api` (a path). */
  transport(user: string, api?: string): DefaultChatTransport<UIMessage>;
  close(): Promise<void>;
}

/** The tools of the served test agents (chat, A2A): `add`, and `pay` that needs approval. */
export function servedTools() {
  return [
    tool({
      name: 'add',
      description: 'Adds two numbers',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    }),
    tool({
      name: 'pay',
      description: 'Pays an amount',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: ({ amount }) => `paid ${amount}`,
    }),
  ] as const;
}

/**
 * The chat handler behind a real Node `http` server on 127.0.0.1, over a real LevelDB in a
 * temp folder, with `model` (the scripted chat model) and the agent's `options`. The user comes
 * from the `x-user` header unless `handlerOptions` say otherwise.
 */
export async function startChatServer(
  model: ScriptedModel = chatModel(),
  options: Pick<AgentOptions, 'whileBusy'> = {},
  handlerOptions: Partial<Omit<ChatHandlerOptions, 'agent'>> = {},
): Promise<ChatServer> {
  const temp = await openTempStore();
  const [add, pay] = servedTools();
  const agent = new Agent({
    name: 'assistant',
    model,
    tools: [add, pay],
    store: temp.store,
    ...options,
  });
  const handler = createChatHandler({
    agent,
    basePath: '/api',
    userId: (request) => request.headers.get('x-user') ?? undefined,
    ...handlerOptions,
  });
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    temp,
    model,
    agent,
    origin,
    as: (user, path, init = {}) =>
      fetch(`${origin}${path}`, {
        ...init,
        headers: {
          ...(user === undefined ? {} : { 'x-user': user }),
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(init.headers as object),
        },
      }),
    transport: (user, api = '/api/chat') =>
      new DefaultChatTransport<UIMessage>({ api: `${origin}${api}`, headers: { 'x-user': user } }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await temp.cleanup();
    },
  };
}

/** Sends `messages` through the transport and reads the answer with the AI SDK's reader. */
export async function answer(
  transport: DefaultChatTransport<UIMessage>,
  chatId: string,
  messages: UIMessage[],
): Promise<{ message: UIMessage; snapshots: number }> {
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const last = messages[messages.length - 1];
  let message: UIMessage | undefined;
  let snapshots = 0;
  for await (const m of readUIMessageStream<UIMessage>({
    stream,
    ...(last?.role === 'assistant' ? { message: last } : {}),
    onError: (error) => {
      throw error;
    },
  })) {
    message = m;
    snapshots++;
  }
  if (!message) throw new Error('no message');
  return { message, snapshots };
}

/** A user's UI message as `useChat` builds it. */
export const userMessage = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});
