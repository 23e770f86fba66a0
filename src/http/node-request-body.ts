import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestBody } from './request-body.js';

/**
 * How much of a refused body is read off the wire (and dropped) after the answer, while the
 * client, still sending, gets to read that answer; then the connection is closed.
 */
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * A Node request's body as the body reader reads it: a web stream that takes one chunk from
 * the request each time it is pulled (the request paused in between, so nothing is read ahead
 * beyond Node's own small buffer). A body refused at its limit is never read whole.
 */
export function nodeRequestBody(req: IncomingMessage): RequestBody {
  const body = new ReadableStream<Uint8Array>(
    {
      pull: (controller) =>
        new Promise<void>((resolve) => {
          const done = () => {
            req.off('data', onData).off('end', onEnd).off('error', onError);
            req.off('close', onClose);
            resolve();
          };
          const onData = (chunk: Buffer) => {
            req.pause();
            done();
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          };
          const onEnd = () => {
            done();
            controller.close();
          };
          const onError = (error: Error) => {
            done();
            controller.error(error);
          };
          const onClose = () => onError(new Error('The client went away'));
          req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
          req.resume();
        }),
    },
    { highWaterMark: 0 },
  );
  return {
    contentType: header(req, 'content-type'),
    contentLength: header(req, 'content-length'),
    body,
  };
}

/**
 * What happens to a body not read to its end once the answer is written (refused at its
 * limit, or before it was read): the rest is read off the wire and dropped, never kept, so the
 * client, still sending, reads the answer instead of a reset connection; past `LINGER_BYTES`
 * the connection is closed.
 */
export function dropUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (req.complete) return;
    let dropped = 0;
    req.on('data', (chunk: Buffer) => {
      dropped += chunk.byteLength;
      if (dropped > LINGER_BYTES) req.socket.destroy();
    });
    req.resume();
  });
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}
