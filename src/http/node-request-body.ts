import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestBody } from './request-body.js';

/**
 * How much of a refused body is read off the wire (and dropped) after the answer, so a client
 * that sends its whole body before it reads still reads the answer.
 */
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * How long a connection whose client sends on past `LINGER_BYTES` is kept, no longer read, before
 * it is closed: its writes wait meanwhile, so it reads the answer before the close.
 */
const LINGER_MS = 5_000;

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
 * limit, or before it was read): the rest is read off the wire and dropped, never kept. Past
 * `LINGER_BYTES` the connection is no longer read and its sending side is ended: a client still
 * sending then waits on its writes and reads the answer (a close while its bytes were unread
 * would reset the connection, and the answer with it). It is closed when the client goes or
 * after `LINGER_MS`.
 */
export function dropUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (req.complete) return;
    let dropped = 0;
    const onData = (chunk: Buffer) => {
      dropped += chunk.byteLength;
      if (dropped <= LINGER_BYTES) return;
      req.off('data', onData);
      req.pause();
      const socket = req.socket;
      socket.end();
      const timer = setTimeout(() => socket.destroy(), LINGER_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    };
    req.on('data', onData);
    req.resume();
  });
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}
