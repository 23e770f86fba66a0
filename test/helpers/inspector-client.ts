import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, Socket } from 'node:net';
import type { InspectorHandle } from '../../src/inspect.js';

/** What the inspector answered: status, headers and body text (parsed JSON when it is JSON). */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
}

/**
 * A plain HTTP client of an inspector (node:http, so tests can set any header, Host too).
 */
export function inspectorClient(inspector: InspectorHandle) {
  const call = (
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    options: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: addressOf(inspector),
          port: inspector.port,
          method,
          path,
          headers: {
            ...(options.body ? { 'content-type': 'application/json' } : {}),
            ...options.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  return {
    /** A read with the inspector's token in its header (unless `headers` replace it). */
    get: (path: string, headers: Record<string, string> = {}) =>
      call('GET', path, { headers: { 'x-agentstate-token': inspector.token, ...headers } }),
    /** An action with the inspector's token in its header (unless `headers` replace it). */
    post: (path: string, body: unknown = {}, headers?: Record<string, string>) =>
      call('POST', path, {
        body: JSON.stringify(body),
        headers: headers ?? { 'x-agentstate-token': inspector.token },
      }),
    raw: call,
  };
}

/**
 * Collects the text of the inspector's live stream (Server-Sent Events) until closed; it sends
 * the inspector's token in its header unless `headers` replace it.
 */
export function liveStream(
  inspector: InspectorHandle,
  query = '',
  headers: Record<string, string> = { 'x-agentstate-token': inspector.token },
) {
  let text = '';
  const waiters = new Set<() => void>();
  const req = request({
    host: addressOf(inspector),
    port: inspector.port,
    path: `/api/live${query}`,
    headers: { accept: 'text/event-stream', ...headers },
  });
  req.on('response', (res) => {
    res.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      for (const w of [...waiters]) w();
    });
  });
  req.on('error', () => undefined);
  req.end();
  return {
    get text() {
      return text;
    },
    /** The frames received so far. */
    frames: () =>
      text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>),
    until: (test: (text: string) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!test(text)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    /** Resolves once the stream is open (its first comment line arrived). */
    opened: () =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!text.startsWith(': live')) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close: () => req.destroy(),
  };
}

/**
 * A live-stream client on a raw socket that reads the response head and then never reads
 * again (a stalled or hostile client): the server's writes to it back up. `drain()` reads
 * again and settles when the server has closed the stream, or once `enough` bytes arrived
 * (a stream still open, holding everything the server wrote).
 */
export async function stalledStream(
  inspector: InspectorHandle,
  headers: Record<string, string> = {},
) {
  const socket = connect({ host: addressOf(inspector), port: inspector.port });
  const lines = Object.entries({ host: `127.0.0.1:${inspector.port}`, ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  socket.write(`GET /api/live HTTP/1.1\r\n${lines.join('')}\r\n`);
  let received = 0;
  let ended = false;
  socket.on('close', () => (ended = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    let head = '';
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      head += chunk.toString('utf8');
      if (!head.includes(': live') && !ended) return;
      socket.off('data', onData);
      socket.pause();
      resolve();
    };
    socket.on('data', onData);
    socket.on('close', resolve);
  });
  return {
    /**
     * The bytes the inspector's process holds for this stream, unsent: its end of the
     * connection, found among the process's open sockets (the test runs the inspector), or
     * undefined once the server closed it.
     */
    serverBuffered: (): number | undefined => {
      const handles = (
        process as unknown as { _getActiveHandles(): unknown[] }
      )._getActiveHandles();
      const mine = handles.find(
        (h): h is Socket =>
          h instanceof Socket &&
          h.localPort === inspector.port &&
          h.remotePort === socket.localPort &&
          !h.destroyed,
      );
      return mine?.writableLength;
    },
    drain: (enough: number) =>
      new Promise<{ bytes: number; closed: boolean }>((resolve) => {
        const done = () => resolve({ bytes: received, closed: ended });
        if (ended) return done();
        socket.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= enough) done();
        });
        socket.on('close', done);
        socket.resume();
      }),
    close: () => socket.destroy(),
  };
}

/** The address a test connects to: 127.0.0.1 for an inspector bound to every interface. */
export function addressOf(inspector: InspectorHandle): string {
  return inspector.host === '0.0.0.0' || inspector.host === '::' ? '127.0.0.1' : inspector.host;
}
