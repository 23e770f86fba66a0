import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isObject } from '../validation/option-checks.js';

/** An MCP server started as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer {
  command: string;
  args?: string[] | undefined;
  /**
   * The child's environment. The SDK's safe defaults (PATH, HOME, ...) are kept; these are
   * added on top. Never stored or logged.
   */
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  /** Where the child's stderr goes. @default 'inherit' */
  stderr?: 'inherit' | 'ignore' | undefined;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer {
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`). Never stored or logged. */
  headers?: Record<string, string> | undefined;
}

/** Opens a fresh MCP transport, for servers neither form above describes. */
export type McpTransportFactory = () => Transport | Promise<Transport>;

/** How an `mcpToolkit` reaches its server: stdio, Streamable HTTP, or a transport factory. */
export type McpConnect = McpStdioServer | McpHttpServer | McpTransportFactory;

const isStringRecord = (v: unknown): boolean =>
  isObject(v) && Object.values(v).every((s) => typeof s === 'string');
const isStringArray = (v: unknown): boolean =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

/** What is wrong with `connect`, or undefined when it is well formed. */
export function connectProblem(connect: unknown): string | undefined {
  if (typeof connect === 'function') return undefined;
  if (!isObject(connect)) {
    return 'a server: { command, args?, env?, cwd? } (stdio), { url, headers? } (Streamable HTTP) or a function returning a transport';
  }
  const stdio = 'command' in connect;
  const http = 'url' in connect;
  if (stdio === http) return 'either { command, ... } (stdio) or { url, ... } (Streamable HTTP)';
  const allowed = stdio ? ['command', 'args', 'env', 'cwd', 'stderr'] : ['url', 'headers'];
  const unknown = Object.keys(connect).find((k) => !allowed.includes(k));
  if (unknown)
    return `without "${unknown}" (${stdio ? 'stdio' : 'HTTP'} servers take ${allowed.join(', ')})`;
  if (stdio) {
    if (typeof connect['command'] !== 'string' || connect['command'] === '')
      return 'a non-empty string command';
    if (connect['args'] !== undefined && !isStringArray(connect['args']))
      return 'args as an array of strings';
    if (connect['env'] !== undefined && !isStringRecord(connect['env']))
      return 'env as an object of strings';
    if (connect['cwd'] !== undefined && typeof connect['cwd'] !== 'string')
      return 'cwd as a string';
    if (
      connect['stderr'] !== undefined &&
      !['inherit', 'ignore'].includes(connect['stderr'] as string)
    )
      return "stderr as 'inherit' or 'ignore'";
    return undefined;
  }
  const url = connect['url'];
  if (!(url instanceof URL) && !(typeof url === 'string' && URL.canParse(url)))
    return 'url as an absolute URL';
  if (connect['headers'] !== undefined && !isStringRecord(connect['headers']))
    return 'headers as an object of strings';
  return undefined;
}

/** A new transport for `connect` (not started: the client starts it). */
export async function openTransport(connect: McpConnect): Promise<Transport> {
  if (typeof connect === 'function') return connect();
  if ('command' in connect) {
    return new StdioClientTransport({
      command: connect.command,
      ...(connect.args && { args: connect.args }),
      ...(connect.env && { env: connect.env }),
      ...(connect.cwd && { cwd: connect.cwd }),
      stderr: connect.stderr ?? 'inherit',
    });
  }
  return new StreamableHTTPClientTransport(new URL(connect.url), {
    ...(connect.headers && { requestInit: { headers: connect.headers } }),
  });
}
