import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ChatHandler } from './chat-handler.js';
import { dropUnreadBody, nodeRequestBody } from './node-request-body.js';

/**
 * A chat handler as a Node `http` request listener: the request becomes a web `Request` (its
 * body streamed a chunk at a time as the handler reads it, never buffered; aborted when the
 * client goes away), the `Response` is written back as it streams. A body the handler did not
 * read to its end (refused at the limit) is dropped as it comes once the answer is written
 * (`dropUnreadBody`). `origin` is the scheme and host the request URLs are read against; by default the
 * request's own `Host` over `http` (so a browser's `Origin` is compared with the address it
 * used).
 * @example
 * createServer(toNodeListener(createChatHandler({ agent, userId }))).listen(3000);
 */
export function toNodeListener(
  handler: ChatHandler,
  origin?: string,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    dropUnreadBody(req, res);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const method = req.method ?? 'GET';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const request = new Request(new URL(req.url ?? '/', origin ?? hostOrigin(req)), {
      method,
      headers,
      signal: abort.signal,
      ...(hasBody ? { body: nodeRequestBody(req).body, duplex: 'half' } : {}),
    });
    void handler(request)
      .then(
        async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          if (!response.body) {
            res.end();
            return;
          }
          // A client that goes away ends the pipeline, which cancels the body.
          await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), res);
        },
        () => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        },
      )
      .catch(() => res.destroy());
  };
}

/** `http://` and the request's `Host` (`localhost` without one). */
function hostOrigin(req: IncomingMessage): string {
  const host = req.headers.host;
  try {
    return new URL(`http://${host ?? 'localhost'}`).origin;
  } catch {
    return 'http://localhost';
  }
}
