import { request } from 'node:http';
import type { InspectorHandle } from '../../src/inspect.js';

/** What the inspector answered: status and body text (parsed JSON when it is JSON). */
export interface Answer {
  status: number;
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
          host: inspector.host,
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
            resolve({ status: res.statusCode ?? 0, text, json });
          });
        },
      );
      req.on('error', reject);
      req.end(options.body);
    });
  return {
    get: (path: string, headers: Record<string, string> = {}) => call('GET', path, { headers }),
    /** An action with the inspector's token in its header (unless `headers` replace it). */
    post: (path: string, body: unknown = {}, headers?: Record<string, string>) =>
      call('POST', path, {
        body: JSON.stringify(body),
        headers: headers ?? { 'x-agentstate-token': inspector.token },
      }),
    raw: call,
  };
}

/** Collects the text of the inspector's live stream (Server-Sent Events) until closed. */
export function liveStream(inspector: InspectorHandle, query = '') {
  let text = '';
  const waiters = new Set<() => void>();
  const req = request({
    host: inspector.host,
    port: inspector.port,
    path: `/api/live${query}`,
    headers: { accept: 'text/event-stream' },
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
