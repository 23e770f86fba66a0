import type { RunStream } from '../agent/run-stream.js';
import { jsonResponse } from './json-response.js';
import type { StreamDecision } from '../agent/agent-call-options.js';
import { pendingApproval } from '../machines/call-approvals.js';
import type { SessionKey } from '../persistence/session-store.js';
import { defaultStore } from '../sessions/default-store.js';
import { checkIdLength } from '../core/id-limit.js';
import { checkChatHandlerOptions, type ChatHandlerOptions } from './chat-handler-options.js';
import {
  chatTurnOf,
  decisionsOf,
  parseBody,
  SessionIdBodySchema,
  SessionIdSchema,
  type ChatTurn,
} from './chat-requests.js';
import { attachStreamResponse, attachedRunResponse } from './attach-stream.js';
import { answeredBefore } from './answered-message.js';
import { HttpError, httpErrorOf } from './http-error.js';
import { refuseForeignOrigin } from './foreign-origin.js';
import { decidedBefore } from './decided-before.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from './request-body.js';
import { uiMessagesOf } from './ui-history.js';
import { UiChunkTranslator } from './ui-chunk-translator.js';
import { aguiEventStreamResponse } from './agui-event-stream.js';
import { AguiEventTranslator } from './agui-event-translator.js';
import { aguiInputOf, aguiTurnOf } from './agui-requests.js';
import { aguiConnectResponse } from './agui-connect.js';
import { firstEvent, type OpenedRun } from './sse-run-stream.js';
import { uiMessageStreamResponse } from './ui-message-stream.js';

/** A chat handler: a web-standard request in, a response out (`createChatHandler`). */
export type ChatHandler = (request: Request) => Promise<Response>;

/** The routes under the base path: `chat`, `agui`, and `sessions/:id/<action>`. */
type Route =
  | { name: 'chat'; sessionId: undefined }
  | { name: 'agui'; sessionId: undefined }
  | { name: 'agui-connect'; sessionId: undefined }
  | { name: 'messages' | 'approvals' | 'cancel' | 'stream'; sessionId: string };

const METHODS: Record<Route['name'], readonly string[]> = {
  chat: ['POST'],
  agui: ['POST'],
  'agui-connect': ['POST'],
  stream: ['GET'],
  messages: ['GET', 'POST'],
  approvals: ['POST'],
  cancel: ['POST'],
};

/**
 * An HTTP handler for chat UIs on web-standard `Request` / `Response` (Node's `http` through
 * `toNodeListener`, Hono, Next.js route handlers, ...). Routes under `basePath`:
 *
 * - `POST /chat`: the AI SDK's `useChat` (`DefaultChatTransport`) body `{ id, messages }`: the
 *   last user message's text is sent to session `id`; a last assistant message whose tool parts
 *   were answered with `addToolApprovalResponse` decides those calls. The answer streams in the
 *   AI SDK UI message stream protocol. The user message's `id` answers once: posted again
 *   (a retry, a double submit) it runs nothing and streams the run that answers it, live if it
 *   still runs (409 `MESSAGE_ANSWERED` when a later run has followed that one).
 * - `POST /sessions/:id/messages`: `{ text }` or the `useChat` body; the same stream.
 * - `GET /sessions/:id/messages`: `{ messages }`, the history as UI messages.
 * - `POST /sessions/:id/approvals`: `{ callId, approved, message? }` or `{ decisions: [...] }`;
 *   the continued run streams.
 * - `POST /sessions/:id/cancel` (no body): cancels the session's run; `{ cancelled: true }`.
 * - `GET /chat/:id/stream`: `useChat({ resume: true })`'s reconnect: the run in progress as
 *   one UI message from its start, then live (see `attachStreamResponse`); none: 204.
 * - `POST /agui`: AG-UI's `RunAgentInput` (what its `HttpAgent` posts), `threadId` the session
 *   id: the last user message is sent, or `resume` entries answer the approval interrupts of
 *   the paused run; the run streams as AG-UI events (`AguiEvent`). A user message id the thread
 *   already answered runs nothing: the answer is what `/agui/connect` sends.
 * - `POST /agui/connect`: AG-UI's `connect` (the same `RunAgentInput`, its `threadId` read): the
 *   thread's messages, then its run in progress from its start and live (see
 *   `aguiConnectResponse`).
 *
 * Who asks is `userId(request)` (none: 401): another user's session is not found (404), as a
 * missing one; a message to a session id that user does not have starts their own. Refusals
 * are `{ error: { code, message } }` (400 bad body, 403 a foreign `Origin`, 404, 405, 409 a
 * state that does not allow it, 413 a body over `maxBodyBytes`, 415 a body that is not JSON)
 * and change nothing stored.
 * @throws TypeError at creation for bad options, a missing `userId` resolver among them.
 * @example
 * const handler = createChatHandler({ agent, userId: (req) => req.headers.get('x-user') ?? undefined });
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  checkChatHandlerOptions(options);
  const { agent, basePath = '', maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = options;
  const allowedOrigins = options.allowedOrigins ?? [];
  const store = options.store ?? agent.options.store ?? defaultStore();

  const routeOf = (url: URL): Route | undefined => {
    if (!url.pathname.startsWith(`${basePath}/`)) return undefined;
    const parts = url.pathname.slice(basePath.length + 1).split('/');
    if (parts.length === 1 && parts[0] === 'chat') return { name: 'chat', sessionId: undefined };
    if (parts.length === 1 && parts[0] === 'agui') return { name: 'agui', sessionId: undefined };
    if (parts.length === 2 && parts[0] === 'agui' && parts[1] === 'connect') {
      return { name: 'agui-connect', sessionId: undefined };
    }
    if (parts.length !== 3) return undefined;
    const action = parts[0] === 'chat' && parts[2] === 'stream' ? 'stream' : parts[2];
    if (action !== 'stream' && parts[0] !== 'sessions') return undefined;
    if (
      action !== 'messages' &&
      action !== 'approvals' &&
      action !== 'cancel' &&
      action !== 'stream'
    )
      return undefined;
    let sessionId: string;
    try {
      sessionId = decodeURIComponent(parts[1]!);
    } catch {
      return undefined;
    }
    if (!SessionIdSchema.safeParse(sessionId).success) return undefined;
    checkIdLength('sessionId', sessionId);
    return { name: action, sessionId };
  };

  /** Starts the turn's run; refused starts throw before any response (`firstEvent`). */
  const open = (key: SessionKey, turn: ChatTurn): Promise<OpenedRun<unknown>> => {
    const call = { userId: key.userId, store };
    const run: RunStream<unknown> =
      turn.kind === 'message'
        ? agent.stream(turn.text, {
            ...call,
            sessionId: key.sessionId,
            ...(turn.messageId === undefined ? {} : { messageId: turn.messageId }),
          })
        : agent.streamDecide(key.sessionId, turn.decisions, call);
    if (turn.kind === 'message') return firstEvent(run);
    return firstEvent(run).catch(async (error: unknown) => {
      throw await decidedBefore(agent, store, key, turn.decisions, error);
    });
  };

  // A message whose id the session already answered (or is answering) gets that answer.
  const stream = async (key: SessionKey, turn: ChatTurn): Promise<Response> => {
    try {
      return uiMessageStreamResponse(await open(key, turn), new UiChunkTranslator(decidedOf(turn)));
    } catch (error) {
      const { messageId } = turn.kind === 'message' ? turn : {};
      if (messageId === undefined) throw error;
      if (!(await answeredBefore(agent, store, key, messageId, error))) throw error;
      return attachedRunResponse(agent, store, key, undefined);
    }
  };

  const aguiStream = async (userId: string, body: unknown): Promise<Response> => {
    const input = aguiInputOf(body);
    const turn = aguiTurnOf(input);
    const key = { sessionId: input.threadId, userId };
    let opened: OpenedRun<unknown>;
    try {
      opened = await open(key, turn);
    } catch (error) {
      // A message id the thread already answered (or is answering): the thread as `connect`.
      const { messageId } = turn.kind === 'message' ? turn : {};
      if (messageId === undefined) throw error;
      if (!(await answeredBefore(agent, store, key, messageId, error))) throw error;
      return aguiConnectResponse(agent, store, key, input.runId);
    }
    const translator = new AguiEventTranslator(input.threadId, input.runId, decidedOf(turn));
    return aguiEventStreamResponse(opened, translator);
  };

  const history = async (key: SessionKey): Promise<Response> => {
    const view = await agent.runtimeFor(store).getSession(key);
    const items = await store.readHistory(key, view.historyFrom, view.historyLength);
    const waiting = new Set(
      (view.run?.context.calls ?? []).filter(pendingApproval).map((c) => c.callId),
    );
    return jsonResponse(200, { messages: uiMessagesOf(items, view.historyFrom, waiting) });
  };

  // The session's run, wherever it executes (a request waiting behind it keeps its message:
  // `whileBusy` answers it once the cancelled run has ended).
  const cancel = async (key: SessionKey): Promise<Response> => {
    await agent.cancel(key.sessionId, { userId: key.userId, store });
    return jsonResponse(200, { cancelled: true });
  };

  return async (request) => {
    try {
      const url = new URL(request.url);
      refuseForeignOrigin(request.headers.get('origin'), url.origin, allowedOrigins);
      const route = routeOf(url);
      if (!route) throw new HttpError(404, 'NOT_FOUND', 'No such route');
      const allowed = METHODS[route.name];
      if (!allowed.includes(request.method)) {
        return jsonResponse(
          405,
          { error: { code: 'METHOD_NOT_ALLOWED', message: `Use ${allowed.join(' or ')}` } },
          { allow: allowed.join(', ') },
        );
      }
      const userId = await options.userId(request);
      if (typeof userId !== 'string' || userId === '') {
        throw new HttpError(401, 'UNAUTHENTICATED', 'No user for this request');
      }
      if (route.name === 'messages' && request.method === 'GET') {
        return await history({ sessionId: route.sessionId, userId });
      }
      if (route.name === 'stream') {
        const after =
          request.headers.get('last-event-id') ??
          new URL(request.url).searchParams.get('after') ??
          undefined;
        return await attachStreamResponse(
          agent,
          store,
          { sessionId: route.sessionId, userId },
          after,
        );
      }
      if (route.name === 'cancel') {
        return await cancel({ sessionId: route.sessionId, userId });
      }
      const body = await readJson(request, maxBodyBytes);
      if (route.name === 'agui') return await aguiStream(userId, body);
      if (route.name === 'agui-connect') {
        const { threadId, runId } = aguiInputOf(body);
        return await aguiConnectResponse(agent, store, { sessionId: threadId, userId }, runId);
      }
      if (route.name === 'chat') {
        const { id } = parseBody(SessionIdBodySchema, body);
        checkIdLength('id', id);
        return await stream({ sessionId: id, userId }, chatTurnOf(body));
      }
      const key = { sessionId: route.sessionId, userId };
      if (route.name === 'messages') return await stream(key, chatTurnOf(body));
      const decisions: StreamDecision[] = decisionsOf(body);
      return await stream(key, { kind: 'decisions', decisions });
    } catch (error) {
      const { status, code, message } = httpErrorOf(error, 'The request failed');
      return jsonResponse(status, { error: { code, message } });
    }
  };
}

/** The calls a turn decides, approved or not. */
function decidedOf(turn: ChatTurn): Map<string, boolean> {
  return new Map(turn.kind === 'decisions' ? turn.decisions.map((d) => [d.callId, d.approve]) : []);
}

/**
 * The request's JSON body (`readJsonBody`): over `limit` 413, not JSON 415, not parsing or
 * empty 400.
 */
async function readJson(request: Request, limit: number): Promise<unknown> {
  const body = await readJsonBody(
    {
      contentType: request.headers.get('content-type'),
      contentLength: request.headers.get('content-length'),
      body: request.body,
    },
    limit,
  );
  if (body === undefined) throw new HttpError(400, 'INVALID_JSON', 'The body is empty: send JSON');
  return body;
}
