import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  CallToolResult,
  Tool as McpToolDescription,
} from '@modelcontextprotocol/sdk/types.js';
import { McpCallError } from '../errors/run-errors.js';
import { causeText } from '../errors/agentstate-error.js';
import type { Clock } from '../core/clock.js';
import { openTransport, type McpConnect } from './mcp-server-options.js';

/** The longest delay a Node timer takes (longer ones fire at once): the SDK's own timeout. */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

export interface McpConnectionOptions {
  toolkit: string;
  connect: McpConnect;
  clock: Clock;
  /**
   * Longest wait for a tool call (by `clock`), and for connecting and listing (by the SDK's
   * own timer, as those happen outside any run step).
   */
  timeoutMs: number;
  /** Called when the server says its tool list changed. */
  onToolsChanged: () => void;
}

/**
 * One session's link to an MCP server: a client connected on first use, dropped (and closed)
 * when a call fails or times out or the server goes away, and connected again on the next call.
 */
export class McpConnection {
  private current: Promise<Client> | undefined;
  private closed = false;

  constructor(private readonly options: McpConnectionOptions) {}

  /** The connected client, connecting first when there is none. */
  open(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('the MCP connection is closed'));
    this.current ??= this.connect();
    return this.current;
  }

  private connect(): Promise<Client> {
    const connecting = (async () => {
      const client = new Client(
        { name: `agentstate/${this.options.toolkit}`, version: '1.0.0' },
        {
          listChanged: {
            tools: { autoRefresh: false, debounceMs: 0, onChanged: this.options.onToolsChanged },
          },
        },
      );
      client.onclose = () => {
        if (this.current === connecting) this.current = undefined;
      };
      const transport = await openTransport(this.options.connect);
      try {
        await client.connect(transport, { timeout: this.options.timeoutMs });
      } catch (error) {
        await client.close().catch(() => undefined); // a started child process must not linger
        throw error;
      }
      return client;
    })();
    connecting.catch(() => {
      if (this.current === connecting) this.current = undefined;
    });
    return connecting;
  }

  /** Every tool the server lists (all pages). */
  async listTools(): Promise<McpToolDescription[]> {
    const client = await this.open();
    const tools: McpToolDescription[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.options.timeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls tool `name`. A failure to connect, a call that fails in transport or takes longer
   * than `timeoutMs` (by the clock) raises `McpCallError` and drops the connection, so the
   * next call reconnects. An abort of `signal` (the run's cancel) is rethrown as is.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const { toolkit, clock, timeoutMs } = this.options;
    const fail = (reason: 'connect' | 'timeout' | 'disconnected', text: string, cause?: unknown) =>
      new McpCallError(
        toolkit,
        name,
        reason,
        `${text}; the toolkit reconnects on the next call`,
        cause,
      );
    let client: Client;
    try {
      // A second try: a restarted server's first answer can be a closed pooled socket.
      client = await this.open().catch(() => this.open());
    } catch (error) {
      throw fail(
        'connect',
        `could not connect to the MCP server of toolkit "${toolkit}": ${causeText(error)}`,
        error,
      );
    }
    const request = new AbortController();
    const timer = new AbortController();
    const cancel = (): void => request.abort(signal.reason);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const outcome = await Promise.race([
        client.callTool({ name, arguments: args }, undefined, {
          signal: request.signal,
          timeout: NO_SDK_TIMEOUT,
        }),
        clock.sleepUntil(clock.now() + timeoutMs, timer.signal).then(() => 'timeout' as const),
      ]);
      if (outcome === 'timeout') {
        request.abort(new Error('timed out'));
        await this.drop();
        throw fail(
          'timeout',
          `the MCP server of toolkit "${toolkit}" did not answer within ${timeoutMs} ms`,
        );
      }
      if ('toolResult' in outcome) {
        return { content: [{ type: 'text', text: JSON.stringify(outcome.toolResult) }] };
      }
      return outcome;
    } catch (error) {
      if (signal.aborted || error instanceof McpCallError) throw error;
      await this.drop();
      throw fail(
        'disconnected',
        `the MCP server of toolkit "${toolkit}" failed: ${causeText(error)}`,
        error,
      );
    } finally {
      signal.removeEventListener('abort', cancel);
      timer.abort();
    }
  }

  /** Closes the current client, if any; the next call connects again. */
  private async drop(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    const client = await current?.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }

  /** Closes the connection for good (a stdio server's process exits). */
  async close(): Promise<void> {
    this.closed = true;
    await this.drop();
  }
}
