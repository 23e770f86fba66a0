import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, httpErrorOf } from '../http/http-error.js';

export { HttpError };

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

/** The JSON error of a failed request (see `httpErrorOf`); 500s say only that the inspector failed. */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const { status, code, message } = httpErrorOf(error, 'The inspector failed to answer');
  sendJson(res, status, { error: { code, message } });
}

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
