/**
 * A chat page served by `agentstate-runtime/http`: streaming answers, an approval button for the order
 * tool, and a reload in the middle of an answer that goes on where it was.
 *
 *   npm run chat          # then open http://127.0.0.1:3000 (PORT changes the port)
 *
 * Offline (no OPENAI_API_KEY) the model is scripted (`examples/chat-agent.ts`); with
 * OPENAI_API_KEY it calls OpenAI, and the key stays in this process. Sessions are stored in
 * LevelDB under ./.agentstate (or AGENTSTATE_DIR). The page is three static files in
 * `examples/chat-page/` (HTML, CSS, a plain JS module: no build step, nothing from a CDN);
 * everything under /api is the chat handler.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { closeDefaultStores, type Model, type SessionStore } from '../src/index.js';
import { createChatHandler, toNodeListener } from '../src/http.js';
import { PacedModel, shopAgent, shopScript } from './chat-agent.js';
import { modelFromEnv } from './model-from-env.js';

/** The page's files, by path: nothing else is served outside /api. */
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/chat.js': { file: 'chat.js', type: 'text/javascript; charset=utf-8' },
  '/chat.css': { file: 'chat.css', type: 'text/css; charset=utf-8' },
};

/** The page runs its own script and style only, and talks to this origin only. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * Who the visitor is. A demo identity: a random id in an HttpOnly cookie the page's script
 * cannot read, set with the page. A real app reads its own session cookie or token here.
 */
const USER_COOKIE = 'chat_user';
const userOf = (cookie: string | null | undefined): string | undefined => {
  const match = new RegExp(`(?:^|;\\s*)${USER_COOKIE}=([A-Za-z0-9-]{1,64})(?:;|$)`).exec(
    cookie ?? '',
  );
  return match?.[1];
};

export interface ChatExampleOptions {
  /** @default OpenAI with OPENAI_API_KEY, else the scripted shop model at a reading pace */
  model?: Model;
  /** @default the default store (LevelDB under AGENTSTATE_DIR or ./.agentstate) */
  store?: SessionStore;
  /** @default 3000; 0 picks a free port */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** Starts the example: the page at `/`, the chat handler under `/api`. */
export async function serveChatExample(
  options: ChatExampleOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const model =
    options.model ?? modelFromEnv(() => new PacedModel(shopScript, () => sleep(60).then(() => {})));
  const handler = createChatHandler({
    agent: shopAgent(model, options.store),
    basePath: '/api',
    userId: (request) => userOf(request.headers.get('cookie')),
  });
  const api = toNodeListener(handler);
  const page = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const entry = FILES[path];
    if (!entry || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    const body = await readFile(fileURLToPath(new URL(`chat-page/${entry.file}`, import.meta.url)));
    const headers: Record<string, string> = { ...PAGE_HEADERS, 'content-type': entry.type };
    if (path === '/' && !userOf(req.headers.cookie)) {
      headers['set-cookie'] = `${USER_COOKIE}=${randomUUID()}; HttpOnly; SameSite=Strict; Path=/`;
    }
    res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
  };
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) return api(req, res);
    page(req, res).catch(() => res.writeHead(500).end());
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function main(): Promise<void> {
  const chat = await serveChatExample({ port: Number(process.env.PORT ?? 3000) });
  console.log(`Chat page at ${chat.url} (Ctrl+C stops it).`);
  process.once('SIGINT', () => {
    void chat
      .close()
      .then(() => closeDefaultStores())
      .then(() => process.exit(0));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
