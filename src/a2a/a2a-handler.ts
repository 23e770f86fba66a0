import { jsonResponse } from '../http/json-response.js';
import {
  A2A_VERSION_HEADER,
  AgentCard,
  AGENT_CARD_PATH,
  formatSSEErrorEvent,
  formatSSEEvent,
  SSE_HEADERS,
} from '@a2a-js/sdk';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { defaultStore } from '../sessions/default-store.js';
import { refuseForeignOrigin } from '../http/foreign-origin.js';
import { HttpError, httpErrorOf } from '../http/http-error.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../http/request-body.js';
import { isObject } from '../validation/option-checks.js';
import { checkA2AHandlerOptions, type A2AHandlerOptions } from './a2a-handler-options.js';
import { AgentRequestHandler, TRACE_STATE_KEY } from './agent-request-handler.js';
import { traceCarrierOf } from '../telemetry/remote-parent.js';
import { agentCardOf, SERVED_VERSIONS } from './agent-card.js';

/** An A2A handler: a web-standard request in, a response out (`createA2AHandler`). */
export type A2AHandler = (request: Request) => Promise<Response>;

/** JSON-RPC 2.0's own error codes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

type JsonRpcEnvelope = {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: unknown;
};

/**
 * An agent served over A2A (JSON-RPC, protocol 1.0; the 0.3 method names too through the
 * SDK's compat layer, chosen by the `A2A-Version` header, absent meaning 0.3) on web-standard
 * `Request` / `Response` (Node's `http` through `toNodeListener`). Routes under `basePath`:
 * `GET /.well-known/agent-card.json` the agent card (`agentCardOf`), and `POST /` (the base
 * path itself) JSON-RPC: `SendMessage`, `SendStreamingMessage` (Server-Sent Events),
 * `GetTask`, `CancelTask`, `SubscribeToTask`, `ListTasks`. A task is a run of a session:
 * `contextId` the session id, the task id `<sessionId>:<runId>`; every answer is read from
 * the store, so any process serving the same agent and store answers any task.
 *
 * Who asks is `userId(request)` (none: 401): another user's task is `TaskNotFound`, as a
 * missing one. Malformed JSON is the JSON-RPC parse error, a body that is not a JSON-RPC
 * request the invalid request error (HTTP 200, as JSON-RPC answers), and nothing stored
 * changes. Refusals before JSON-RPC (a foreign `Origin` 403, an unknown path 404, another method
 * 405, a body over `maxBodyBytes` 413, not JSON 415) are `{ error: { code, message } }` like
 * `createChatHandler`'s.
 * @throws TypeError at creation for bad options, a missing `userId` resolver among them.
 * @example
 * const handler = createA2AHandler({
 *   agent,
 *   userId: (req) => req.headers.get('x-user') ?? undefined,
 *   card: { url: 'http://127.0.0.1:4000/' },
 * });
 */
export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  checkA2AHandlerOptions(options);
  const { agent, basePath = '', maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = options;
  const allowedOrigins = options.allowedOrigins ?? [];
  const store = options.store ?? agent.options.store ?? defaultStore();
  const card = agentCardOf(agent, options.card);
  const cardJson = AgentCard.toJSON(card);
  const requestHandler = new AgentRequestHandler({ agent, store, card });
  const current = new JsonRpcTransportHandler(requestHandler);
  const legacy = new LegacyJsonRpcTransportHandler(requestHandler);
  const rpcPath = basePath === '' ? '/' : basePath;
  const cardPath = `${basePath}/${AGENT_CARD_PATH.replace(/^\//, '')}`;

  return async (request) => {
    try {
      const url = new URL(request.url);
      refuseForeignOrigin(request.headers.get('origin'), url.origin, allowedOrigins);
      if (url.pathname === cardPath) {
        if (request.method !== 'GET') return methodNotAllowed('GET');
        return jsonResponse(200, cardJson);
      }
      if (url.pathname !== rpcPath) throw new HttpError(404, 'NOT_FOUND', 'No such route');
      if (request.method !== 'POST') return methodNotAllowed('POST');
      const userId = await options.userId(request);
      if (typeof userId !== 'string' || userId === '') {
        throw new HttpError(401, 'UNAUTHENTICATED', 'No user for this request');
      }
      let body: unknown;
      try {
        body = await readJsonBody(
          {
            contentType: request.headers.get('content-type'),
            contentLength: request.headers.get('content-length'),
            body: request.body,
          },
          maxBodyBytes,
        );
      } catch (error) {
        if (error instanceof HttpError && error.code === 'INVALID_JSON') {
          return rpcError(null, PARSE_ERROR, 'Parse error: the body is not valid JSON');
        }
        throw error;
      }
      if (!isRequest(body)) {
        const id = isObject(body) && isId(body['id']) ? body['id'] : null;
        return rpcError(id, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 request');
      }
      const version = request.headers.get(A2A_VERSION_HEADER) || '0.3';
      const trace = traceCarrierOf(request.headers);
      const context = new ServerCallContext({
        user: { isAuthenticated: true, userName: userId },
        requestedVersion: version,
        ...(trace ? { state: new Map([[TRACE_STATE_KEY, trace]]) } : {}),
      });
      if (!(SERVED_VERSIONS as readonly string[]).includes(version)) {
        const error = JsonRpcTransportHandler.mapToJSONRPCError(
          new VersionNotSupportedError(`A2A version ${version} is not served (1.0 and 0.3 are)`),
        );
        return jsonResponse(200, { jsonrpc: '2.0', id: body.id ?? null, error });
      }
      const answer =
        version === '0.3'
          ? await legacy.handle(body, context)
          : await current.handle(body, context);
      if (!isStream(answer)) return jsonResponse(200, answer);
      return await sseResponse(answer, body.id ?? null, version === '0.3');
    } catch (error) {
      const { status, code, message } = httpErrorOf(error, 'The request failed');
      return jsonResponse(status, { error: { code, message } });
    }
  };
}

/**
 * The stream as Server-Sent Events, its first event read before the response starts (an error
 * there is one JSON-RPC error, not a stream); a failure later ends it with an `error` event.
 */
async function sseResponse(
  events: AsyncGenerator<JsonRpcEnvelope, void, undefined>,
  id: string | number | null,
  legacy: boolean,
): Promise<Response> {
  const mapError = (error: unknown) =>
    legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
      : JsonRpcTransportHandler.mapToJSONRPCError(error);
  let first: IteratorResult<JsonRpcEnvelope, void>;
  try {
    first = await events.next();
  } catch (error) {
    return jsonResponse(200, { jsonrpc: '2.0', id, error: mapError(error) });
  }
  const encoder = new TextEncoder();
  let pending: JsonRpcEnvelope | undefined = first.done ? undefined : first.value;
  let done = first.done === true;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending) {
        controller.enqueue(encoder.encode(formatSSEEvent(pending)));
        pending = undefined;
        return;
      }
      if (done) {
        controller.close();
        return;
      }
      try {
        const next = await events.next();
        if (next.done) {
          done = true;
          controller.close();
        } else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (error) {
        done = true;
        controller.enqueue(
          encoder.encode(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(error) })),
        );
        controller.close();
      }
    },
    async cancel() {
      done = true;
      await events.return(undefined);
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

function isStream(value: unknown): value is AsyncGenerator<JsonRpcEnvelope, void, undefined> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === 'function'
  );
}

function isId(value: unknown): value is string | number | null {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isInteger(value))
  );
}

/** A JSON-RPC 2.0 request: `jsonrpc: '2.0'`, a method name, an id (string, integer or null). */
function isRequest(
  body: unknown,
): body is { jsonrpc: '2.0'; method: string; id?: string | number | null; params?: unknown } {
  return (
    isObject(body) &&
    body['jsonrpc'] === '2.0' &&
    typeof body['method'] === 'string' &&
    body['method'] !== '' &&
    (!('id' in body) || isId(body['id']))
  );
}

function rpcError(id: string | number | null, code: number, message: string): Response {
  return jsonResponse(200, { jsonrpc: '2.0', id, error: { code, message } });
}

function methodNotAllowed(allow: string): Response {
  return jsonResponse(
    405,
    { error: { code: 'METHOD_NOT_ALLOWED', message: `Use ${allow}` } },
    { allow },
  );
}
