import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';

/**
 * An A2A server written with the official SDK alone (`DefaultRequestHandler`, an in-memory task
 * store, its JSON-RPC transport handler) on 127.0.0.1: a foreign remote agent for the client
 * side's tests, its behaviour given as an `AgentExecutor`.
 */
export interface SdkServer {
  url: string;
  /** The JSON-RPC requests received (method names, in order). */
  methods: string[];
  /** The `traceparent` headers received. */
  traceparents: string[];
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export async function serveSdkAgent(
  executor: AgentExecutor,
  name = 'remote',
  onRequest?: (method: string) => void,
): Promise<SdkServer> {
  const methods: string[] = [];
  const traceparents: string[] = [];
  const served: { card?: AgentCard } = {};
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(served.card));
        return;
      }
      const body = await readBody(req);
      const parsed = JSON.parse(body) as { method?: string };
      methods.push(String(parsed.method));
      onRequest?.(String(parsed.method));
      const tp = req.headers['traceparent'];
      if (typeof tp === 'string') traceparents.push(tp);
      const out = await rpc.handle(body, new ServerCallContext());
      if (typeof (out as AsyncGenerator)[Symbol.asyncIterator] === 'function') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for await (const event of out as AsyncGenerator) {
          res.write(`data: ${JSON.stringify(event)}\n\n`);
        }
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(out));
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name,
    description: `${name}, served by the SDK`,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  served.card = card;
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const rpc = new JsonRpcTransportHandler(handler);
  return {
    url,
    methods,
    traceparents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

export const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

export const agentMessage = (
  ctx: RequestContext,
  messageId: string,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Message => ({
  messageId,
  contextId: ctx.contextId,
  taskId: ctx.taskId,
  role: Role.ROLE_AGENT,
  parts,
  metadata,
  extensions: [],
  referenceTaskIds: [],
});

/** Publishes a status (and, for `completed`, the answer as an artifact first). */
export function publishStatus(
  ctx: RequestContext,
  bus: ExecutionEventBus,
  state: TaskState,
  message?: Message,
): void {
  bus.publish(
    AgentEvent.statusUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { state, message, timestamp: new Date(0).toISOString() },
      metadata: undefined,
    }),
  );
}

/** Publishes the task itself (the first event of every stream the SDK serves). */
export function publishTask(ctx: RequestContext, bus: ExecutionEventBus): void {
  if (ctx.task) {
    bus.publish(AgentEvent.task({ ...ctx.task, history: [...ctx.task.history, ctx.userMessage] }));
    return;
  }
  bus.publish(
    AgentEvent.task({
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    }),
  );
}

/** Publishes the answer as an artifact. */
export function publishAnswer(ctx: RequestContext, bus: ExecutionEventBus, answer: string): void {
  bus.publish(
    AgentEvent.artifactUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      artifact: {
        artifactId: `answer-${ctx.taskId}`,
        name: 'answer',
        description: '',
        parts: [text(answer)],
        metadata: undefined,
        extensions: [],
      },
      append: false,
      lastChunk: true,
      metadata: undefined,
    }),
  );
}
