import { HttpError } from './http-error.js';

/** The body limit of the chat handler's routes unless `maxBodyBytes` says otherwise: 1 MB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** What the body reader reads of a request: its headers and its body as a web stream. */
export interface RequestBody {
  /** The `Content-Type` header, if any. */
  contentType: string | null;
  /** The `Content-Length` header, if any. */
  contentLength: string | null;
  /** The body (`null`: none). */
  body: ReadableStream<Uint8Array> | null;
}

/** `application/json`, or a `+json` type (`application/vnd.api+json`), parameters aside. */
function isJson(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

const tooLarge = (limit: number) =>
  new HttpError(413, 'BODY_TOO_LARGE', `The body is larger than ${limit} bytes`);

const notJson = () =>
  new HttpError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'The body must be JSON sent with Content-Type: application/json',
  );

/**
 * Reads a request's JSON body, never more than `limit` bytes: a `Content-Length` over it is a
 * 413 `BODY_TOO_LARGE` before a byte is read; otherwise the body is read chunk by chunk and the
 * read is cancelled as soon as it passes the limit (413 again), so a body of any size costs at
 * most the limit in memory. A body whose `Content-Type` is not JSON is a 415
 * `UNSUPPORTED_MEDIA_TYPE` (what a form or a `text/plain` post from another site sends, with
 * no preflight), unread; JSON that does not parse is a 400 `INVALID_JSON`. An empty body
 * (no `Content-Type` needed) is `undefined`. The one body reader of the chat handler and the
 * inspector.
 */
export async function readJsonBody(request: RequestBody, limit: number): Promise<unknown> {
  const { contentType, contentLength } = request;
  if (contentType !== null && !isJson(contentType)) throw notJson();
  if (contentLength !== null && /^\d+$/.test(contentLength.trim())) {
    if (Number(contentLength) > limit) throw tooLarge(limit);
  }
  const bytes = await readAtMost(request.body, limit);
  if (bytes.length === 0) return undefined;
  if (contentType === null) throw notJson();
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch {
    throw new HttpError(400, 'INVALID_JSON', 'The body is not valid JSON');
  }
}

/** The stream's bytes, or a 413 (the read cancelled) once they pass `limit`. */
async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
