import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { createChatHandler, type ChatHandlerOptions } from '../../src/http.js';
import { launchHeadlessChromium } from '../../scripts/headless-chromium.js';
import {
  chatModel,
  startChatServer,
  userMessage,
  type ChatServer,
} from '../helpers/chat-server.js';
import { dumpBackend } from '../helpers/session-fixtures.js';

/** The user of a request from its `user` cookie, as an app with cookie sessions reads it. */
const cookieUser = (request: Request): string | undefined =>
  /(?:^|;\s*)user=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];

const servers: ChatServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<Omit<ChatHandlerOptions, 'agent'>> = {}) {
  const chat = await startChatServer(chatModel(), {}, { userId: cookieUser, ...options });
  servers.push(chat);
  return chat;
}

const error = async (res: Response) => ({
  status: res.status,
  code: ((await res.json()) as { error: { code: string } }).error.code,
});

describe('a request another site could send is refused before anything runs', () => {
  const text = JSON.stringify({ text: 'hello' });
  const decision = JSON.stringify({ callId: 'pay_1', approved: true });

  it.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
  ])(
    'a %s body is 415 UNSUPPORTED_MEDIA_TYPE on every body route, nothing stored',
    async (_, type) => {
      const chat = await start();
      const before = await dumpBackend(chat.temp.store);
      const cookie = { cookie: 'user=alice', 'content-type': type };
      for (const [path, body] of [
        ['/api/sessions/s1/messages', text],
        ['/api/sessions/s1/approvals', decision],
        ['/api/chat', JSON.stringify({ id: 's1', messages: [userMessage('m1', 'hi')] })],
        ['/api/agui', JSON.stringify({ threadId: 's1', runId: 'r1', messages: [] })],
      ] as const) {
        const res = await chat.as(undefined, path, { method: 'POST', headers: cookie, body });
        expect({ path, ...(await error(res)) }).toEqual({
          path,
          status: 415,
          code: 'UNSUPPORTED_MEDIA_TYPE',
        });
      }
      expect(chat.model.callCount).toBe(0);
      expect(await dumpBackend(chat.temp.store)).toEqual(before);
    },
  );

  it('a body with no Content-Type (a Blob a page posts) is 415, nothing stored', async () => {
    const chat = await start();
    const before = await dumpBackend(chat.temp.store);
    const res = await fetch(`${chat.origin}/api/sessions/s1/messages`, {
      method: 'POST',
      headers: { cookie: 'user=alice' },
      body: new Blob([text]),
    });
    expect(await error(res)).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(chat.model.callCount).toBe(0);
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
  });

  it('a foreign Origin is 403 FORBIDDEN_ORIGIN on every route, a JSON body too; the own origin and allowedOrigins pass', async () => {
    const chat = await start({ allowedOrigins: ['https://app.example'] });
    const before = await dumpBackend(chat.temp.store);
    for (const origin of [
      'https://evil.example',
      'null',
      chat.origin.replace('127.0.0.1', 'localhost'),
    ]) {
      for (const [method, path, body] of [
        ['POST', '/api/sessions/s1/messages', text],
        ['POST', '/api/sessions/s1/approvals', decision],
        ['POST', '/api/sessions/s1/cancel', undefined],
        ['GET', '/api/sessions/s1/messages', undefined],
      ] as const) {
        const res = await chat.as(undefined, path, {
          method,
          headers: { cookie: 'user=alice', origin },
          ...(body === undefined ? {} : { body }),
        });
        expect({ origin, path, ...(await error(res)) }).toEqual({
          origin,
          path,
          status: 403,
          code: 'FORBIDDEN_ORIGIN',
        });
      }
    }
    expect(chat.model.callCount).toBe(0);
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
    for (const origin of [chat.origin, 'https://app.example']) {
      const res = await chat.as(undefined, '/api/sessions/s1/messages', {
        method: 'POST',
        headers: { cookie: 'user=alice', origin },
        body: text,
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('"finish"');
    }
    expect(chat.model.callCount).toBe(2);
  });

  it.each([
    ['maxBodyBytes', { maxBodyBytes: 0 }],
    ['maxBodyBytes', { maxBodyBytes: '1mb' }],
    ['allowedOrigins', { allowedOrigins: 'https://app.example' }],
    ['allowedOrigins', { allowedOrigins: ['https://app.example/'] }],
  ])('a bad %s is a TypeError naming it', (name, options) => {
    const agent = new Agent({ name: 'a', model: new ScriptedModel([]) });
    const create = () =>
      createChatHandler({
        agent,
        userId: () => 'alice',
        ...options,
      } as unknown as ChatHandlerOptions);
    expect(create).toThrow(TypeError);
    expect(create).toThrow(`option "${name}" must be`);
  });
});

describe('a page of another origin in Chromium', () => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchHeadlessChromium();
  });
  afterAll(() => browser?.close());

  it("cannot send a message or approve with the user's cookie (no preflight: text/plain, a Blob)", async () => {
    const chat = await start();
    // the user's own message, through the app's origin: a pay call waits for approval
    const own = await chat.as(undefined, '/api/sessions/s1/messages', {
      method: 'POST',
      headers: { cookie: 'user=alice' },
      body: JSON.stringify({ text: 'pay' }),
    });
    expect(own.status).toBe(200);
    await own.text();
    const before = await dumpBackend(chat.temp.store);
    const calls = chat.model.callCount;
    // another origin (same host, another port: the same site, so the Lax cookie rides along)
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const context = await browser!.newContext();
    try {
      await context.addCookies([{ name: 'user', value: 'alice', url: chat.origin }]);
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      const sent = await page.evaluate(async (target) => {
        const post = (path: string, init: RequestInit) =>
          fetch(`${target}${path}`, {
            method: 'POST',
            mode: 'no-cors',
            credentials: 'include',
            ...init,
          })
            .then((r) => r.type)
            .catch((e: unknown) => String(e));
        return [
          await post('/api/sessions/s1/messages', {
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ text: 'transfer everything' }),
          }),
          await post('/api/sessions/s1/approvals', {
            body: new Blob([JSON.stringify({ callId: 'pay_1', approved: true })]),
          }),
        ];
      }, chat.origin);
      expect(sent).toEqual(['opaque', 'opaque']); // the browser sent both
    } finally {
      await context.close();
      attacker.closeAllConnections();
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
    expect(chat.model.callCount).toBe(calls);
    expect(await dumpBackend(chat.temp.store)).toEqual(before);
  });
});
