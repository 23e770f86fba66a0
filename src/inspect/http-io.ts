import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentStateError } from '../errors/agentstate-error.js';

/** A request the inspector refuses: its HTTP status and a stable code, sent as JSON. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 405 | 409 | 413 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The largest JSON body an action takes. */
const MAX_BODY_BYTES = 64 * 1024;

/** Headers of every response: nothing cached, no framing by another site, no sniffing. */
const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  contentType: string,
  text: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': `${contentType}; charset=utf-8`,
    'content-length': Buffer.byteLength(text),
    ...extra,
  });
  res.end(text);
}

/**
 * The JSON error of a failed request: an `HttpError` as it is, a typed agentstate error by its
 * code (not found 404, a state that does not allow the action 409, other typed errors 400), a
 * `TypeError` (a bad argument) 400. Anything else is 500 without its message.
 */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (error instanceof HttpError) {
    sendJson(res, error.status, { error: { code: error.code, message: error.message } });
  } else if (error instanceof AgentStateError) {
    const status = NOT_FOUND.has(error.code) ? 404 : CONFLICTS.has(error.code) ? 409 : 400;
    sendJson(res, status, { error: { code: error.code, message: error.message } });
  } else if (error instanceof TypeError) {
    sendJson(res, 400, { error: { code: 'BAD_REQUEST', message: error.message } });
  } else {
    sendJson(res, 500, { error: { code: 'INTERNAL', message: 'The inspector failed to answer' } });
  }
}

/** Codes of what does not exist (or belongs to another user, which looks the same). */
const NOT_FOUND: ReadonlySet<string> = new Set(['SESSION_NOT_FOUND', 'RUN_NOT_FOUND']);

/** Codes of actions the session's state does not allow now. */
const CONFLICTS: ReadonlySet<string> = new Set([
  'INVALID_SESSION_TRANSITION',
  'RUN_IN_PROGRESS',
  'RUN_PAUSED',
  'NOTHING_TO_RESUME',
  'SESSION_CONFLICT',
  'STALE_DECISION',
  'ALREADY_DECIDED',
  'WRONG_AGENT',
  'DEFINITION_CHANGED',
]);

/** Reads a JSON object body (an empty body is `{}`); anything else is a 400. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'BODY_TOO_LARGE', 'The body is too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'The body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'BAD_REQUEST', 'The body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
