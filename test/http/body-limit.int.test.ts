import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonLineChild } from '../helpers/json-line-child.js';

/**
 * Body limits through real servers in a child process (the chat handler behind
 * `toNodeListener`, and the inspector), each with a 1 MB limit: a body over it, of any size,
 * with or without Content-Length, is a 413 `BODY_TOO_LARGE`, and the child's peak memory does
 * not grow with the body.
 */
const MB = 1024 * 1024;
const LIMIT = MB;

let child: JsonLineChild;
let chat: string;
let inspector: string;
beforeAll(async () => {
  child = await JsonLineChild.start('test/helpers/body-limit-server.ts', []);
  const ready = await child.next('ready');
  if (ready.event !== 'ready') throw new Error(`child: ${String(ready['stderr'])}`);
  chat = `http://127.0.0.1:${String(ready['chat'])}`;
  inspector = `http://127.0.0.1:${String(ready['inspector'])}`;
});
afterAll(() => child.stop());

/** The child's peak resident set so far. */
async function peakRss(): Promise<number> {
  child.send('memory');
  const event = await child.next('memory');
  return event['maxRssBytes'] as number;
}

interface Answer {
  status: number;
  body: string;
  /** How many body bytes the client had written when the answer came. */
  sent: number;
}

/**
 * POSTs a JSON-typed body of `size` bytes (spaces, then nothing), produced as it is written
 * (never held whole), with a Content-Length or chunked; stops writing when the answer comes.
 */
function postStreaming(
  url: string,
  size: number,
  withLength: boolean,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(withLength ? { 'content-length': String(size) } : {}),
        ...headers,
      },
    });
    let answered = false;
    let sent = 0;
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, sent });
      });
      res.on('error', reject);
    });
    // the server closes the connection after its answer: writing on is refused then
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!answered && sent < size) {
        const n = Math.min(chunk.length, size - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const routes = (): { name: string; url: string; headers: Record<string, string> }[] => [
  { name: 'chat', url: `${chat}/api/chat`, headers: {} },
  { name: 'messages', url: `${chat}/api/sessions/s1/messages`, headers: {} },
  { name: 'approvals', url: `${chat}/api/sessions/s1/approvals`, headers: {} },
  { name: 'agui', url: `${chat}/api/agui`, headers: {} },
  { name: 'agui connect', url: `${chat}/api/agui/connect`, headers: {} },
  {
    name: 'inspector approve',
    url: `${inspector}/api/sessions/s1/approve`,
    headers: { 'x-agentstate-token': 'inspector-secret-token' },
  },
];

const tooLarge = (answer: Answer) => ({
  status: answer.status,
  code: (JSON.parse(answer.body) as { error: { code: string } }).error.code,
});

describe('a body over the limit is 413 BODY_TOO_LARGE on every route', () => {
  it('64 MB bodies, with and without Content-Length, leave the peak memory within a small multiple of the limit', async () => {
    // warm up: every route refuses a body a little over the limit both ways
    for (const route of routes()) {
      for (const withLength of [true, false]) {
        const answer = await postStreaming(route.url, 2 * LIMIT, withLength, route.headers);
        expect({ route: route.name, ...tooLarge(answer) }).toEqual({
          route: route.name,
          status: 413,
          code: 'BODY_TOO_LARGE',
        });
      }
    }
    const before = await peakRss();
    for (const route of routes()) {
      for (const withLength of [true, false]) {
        const answer = await postStreaming(route.url, 64 * MB, withLength, route.headers);
        expect({ route: route.name, withLength, ...tooLarge(answer) }).toEqual({
          route: route.name,
          withLength,
          status: 413,
          code: 'BODY_TOO_LARGE',
        });
        // refused on its Content-Length before reading, or at the limit: never read through
        expect(answer.sent).toBeLessThan(32 * MB);
      }
    }
    const growth = (await peakRss()) - before;
    console.log(`peak RSS growth over 12 bodies of 64 MB: ${(growth / MB).toFixed(1)} MB`);
    // the bound: a few copies of the limit, plus the refused rest dropped after each answer
    // (16 MB at most per connection, garbage until collected), plus slack
    expect(growth).toBeLessThan(4 * LIMIT + 32 * MB);
  });

  it('600 MB streamed by the client, with and without Content-Length, is 413, never a 500', async () => {
    const before = await peakRss();
    for (const route of routes()) {
      for (const withLength of [true, false]) {
        const answer = await postStreaming(route.url, 600 * MB, withLength, route.headers);
        expect({ route: route.name, withLength, ...tooLarge(answer) }).toEqual({
          route: route.name,
          withLength,
          status: 413,
          code: 'BODY_TOO_LARGE',
        });
      }
    }
    expect((await peakRss()) - before).toBeLessThan(4 * LIMIT + 32 * MB);
  });

  it('a body just under the limit is read (and refused for what it says, not its size)', async () => {
    const padded = `{"text":"hi"}${' '.repeat(LIMIT - 100)}`;
    const res = await fetch(`${chat}/api/sessions/s1/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: padded,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_BODY');
  });
});
