import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A running Streamable HTTP MCP server on 127.0.0.1. */
export interface McpHttpServer {
  url: string;
  port: number;
  /** JSON-RPC requests received, by method (`tools/list`, `tools/call`, ...). */
  requests: Map<string, number>;
  /** Authorization headers received, in order. */
  authorizations: (string | undefined)[];
  /** The MCP servers of the sessions still open. */
  live: Set<McpServer>;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/**
 * Starts a stateful Streamable HTTP MCP server on 127.0.0.1 (at `port`, else a free one): each MCP session
 * gets its own `McpServer` from `build` and its own `StreamableHTTPServerTransport`.
 */
export async function startMcpHttpServer(build: () => McpServer, port = 0): Promise<McpHttpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const requests = new Map<string, number>();
  const authorizations: (string | undefined)[] = [];
  const live = new Set<McpServer>();
  const http: Server = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      for (const message of Array.isArray(body) ? body : [body]) {
        const method = (message as { method?: unknown } | undefined)?.method;
        if (typeof method === 'string') requests.set(method, (requests.get(method) ?? 0) + 1);
      }
      authorizations.push(req.headers.authorization);
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport) {
        if (typeof id === 'string' || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        const server = build();
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
          live.delete(server);
        };
        live.add(server);
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    port: address.port,
    requests,
    authorizations,
    live,
    async close() {
      await Promise.allSettled([...transports.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
