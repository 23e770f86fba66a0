import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, httpErrorOf } from '../http/http-error.js';
import { nodeRequestBody } from '../http/node-request-body.js';
import { readJsonBody as readBody } from '../http/request-body.js';

export { HttpError };

/** The largest JSON body an action takes unless the inspector's `maxBodyBytes` says otherwise. */
export const INSPECTOR_MAX_BODY_BYTES = 64 * 1024;

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

/** The JSON error of a failed request (see `httpErrorOf`); 500s say only that the inspector failed. */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const { status, code, message } = httpErrorOf(error, 'The inspector failed to answer');
  sendJson(res, status, { error: { code, message } });
}

/**
 * Reads a JSON object body with the chat handler's body reader (`readJsonBody`: over `limit`
 * 413 unread, not JSON 415); an empty body is `{}`, anything but an object a 400.
 */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<Record<string, unknown>> {
  const value = await readBody(nodeRequestBody(req), limit);
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'BAD_REQUEST', 'The body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
