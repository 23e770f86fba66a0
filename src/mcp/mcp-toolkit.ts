import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { systemClock, type Clock } from '../core/clock.js';
import type { AnyTool } from '../tools/tool.js';
import type { Toolkit, ToolkitSession } from '../tools/toolkit.js';
import { OptionChecker, optionNames } from '../validation/option-checks.js';
import { McpConnection } from './mcp-connection.js';
import { connectProblem, type McpConnect } from './mcp-server-options.js';
import { McpToolListCache, type McpToolDescription } from './mcp-tool-list-cache.js';
import { mcpTool, type McpNeedsApproval } from './mcp-tool.js';

/** Options of {@link mcpToolkit}. */
export interface McpToolkitOptions {
  /** The toolkit's name (errors and `prefix: true` use it). */
  name: string;
  /**
   * The server: `{ command, args?, env?, cwd?, stderr? }` starts it as a child process (stdio),
   * `{ url, headers? }` reaches it over Streamable HTTP, a function returns any MCP transport.
   * @example connect: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] }
   * @example connect: { url: 'https://mcp.example.com/mcp', headers: { Authorization: `Bearer ${token}` } }
   */
  connect: McpConnect;
  /**
   * Prefixes the names the model sees: `true` for `<name>_`, or a string of your own. Names are
   * made model-safe (characters other than letters, digits, `_` and `-` become `_`).
   * @default false
   */
  prefix?: boolean | string | undefined;
  /**
   * Whether a call needs a human's approval (as a local tool's `needsApproval`): for all the
   * server's tools, or a function of the server's tool name and the arguments.
   * @default false
   */
  needsApproval?: McpNeedsApproval | undefined;
  /**
   * Longest wait for one tool call, by `clock`. A call past it becomes a tool error item and
   * the connection is closed (a stdio server is stopped); the next call reconnects. It also
   * bounds connecting and listing the tools (by the SDK's own timer).
   * @default 60_000
   */
  timeoutMs?: number | undefined;
  /**
   * How long a listing of the server's tools is reused by later sessions (by `clock`); `0`
   * lists at every session. `refresh()` and the server's `tools/list_changed` end it early.
   * @default 300_000
   */
  toolCacheMs?: number | undefined;
  /**
   * Called when the server says its tool list changed (`notifications/tools/list_changed`),
   * after the cached list was dropped: sessions from then on list the tools again (a session
   * keeps the tools it started with).
   */
  onToolsChanged?: (() => void) | undefined;
  /** Extra instructions appended to the agent's in sessions that have these tools. */
  instructions?: string | undefined;
  /** @default the system clock */
  clock?: Clock | undefined;
}

/** A toolkit of an MCP server's tools. */
export interface McpToolkit extends Toolkit {
  /** Forgets the cached tool list: the next session lists the server's tools again. */
  refresh(): void;
}

const MCP_TOOLKIT_OPTION_NAMES = optionNames<McpToolkitOptions>({
  name: true,
  connect: true,
  prefix: true,
  needsApproval: true,
  timeoutMs: true,
  toolCacheMs: true,
  onToolsChanged: true,
  instructions: true,
  clock: true,
});

const MODEL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name the model calls a server's tool by. */
function modelName(prefix: string, serverName: string): string {
  return `${prefix}${serverName}`.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** Checks the options of `mcpToolkit()`; throws a `TypeError` at the first mistake. */
function checkOptions(options: McpToolkitOptions): void {
  const name = (options as { name?: unknown } | null)?.name;
  new OptionChecker(
    typeof name === 'string' ? `mcpToolkit("${name}")` : 'mcpToolkit()',
    options ?? null,
    MCP_TOOLKIT_OPTION_NAMES,
  )
    .nonEmptyString('name', true)
    .check('connect', connectProblem(options.connect) ?? '', (v) => !connectProblem(v), true)
    .check('prefix', 'a boolean or a string', (v) => ['boolean', 'string'].includes(typeof v))
    .check('needsApproval', 'a boolean or a function', (v) =>
      ['boolean', 'function'].includes(typeof v),
    )
    .positiveInteger('timeoutMs')
    .nonNegativeInteger('toolCacheMs')
    .function('onToolsChanged')
    .string('instructions')
    .implements('clock', 'Clock', ['now', 'sleepUntil']);
}

/**
 * A toolkit of an MCP server's tools, through `@modelcontextprotocol/sdk`. Each session
 * connects (a stdio server is started per session) and closes with the session. The tool list
 * is cached across sessions (`toolCacheMs`, `refresh()`); each tool's JSON Schema is what the
 * model sees and what its arguments are validated against before the server is called. Calls
 * go through the normal tool path, so they are journaled and never repeated by a resume.
 * @example
 * const files = mcpToolkit({ name: 'files', connect: { command: 'node', args: ['server.js'] } });
 * const agent = new Agent({ name: 'a', model, toolkits: [files] });
 */
export function mcpToolkit(options: McpToolkitOptions): McpToolkit {
  checkOptions(options);
  const { name, connect } = options;
  const clock = options.clock ?? systemClock;
  const prefix = options.prefix === true ? `${name}_` : options.prefix || '';
  const needsApproval = options.needsApproval ?? false;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const cache = new McpToolListCache(options.toolCacheMs ?? 300_000, clock);
  const validator = new AjvJsonSchemaValidator();

  const toolsFor = (listed: McpToolDescription[], connection: McpConnection): AnyTool[] => {
    const seen = new Map<string, string>();
    return listed.map((description) => {
      const model = modelName(prefix, description.name);
      if (!MODEL_NAME.test(model)) {
        throw new TypeError(
          `MCP tool "${description.name}" gives the model name "${model}", longer than 64 characters`,
        );
      }
      const other = seen.get(model);
      if (other !== undefined) {
        throw new TypeError(
          `MCP tools "${other}" and "${description.name}" both become "${model}" for the model`,
        );
      }
      seen.set(model, description.name);
      return mcpTool(description, {
        toolkit: name,
        name: model,
        connection,
        validator,
        needsApproval,
      });
    });
  };

  return Object.freeze({
    name,
    refresh: () => cache.invalidate(),
    async create(): Promise<ToolkitSession> {
      const connection = new McpConnection({
        toolkit: name,
        connect,
        clock,
        timeoutMs,
        onToolsChanged: () => {
          cache.invalidate();
          try {
            options.onToolsChanged?.();
          } catch {
            // a notification hook must not break the connection
          }
        },
      });
      try {
        await connection.open();
        const tools = toolsFor(await cache.get(() => connection.listTools()), connection);
        return {
          tools,
          ...(options.instructions !== undefined && { instructions: options.instructions }),
          close: () => connection.close(),
        };
      } catch (error) {
        await connection.close();
        throw error;
      }
    },
  });
}
