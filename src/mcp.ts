/**
 * MCP tools: `mcpToolkit` turns an MCP server's tools into a toolkit. A subpath of its own so
 * the root import never loads `@modelcontextprotocol/sdk` (an optional peer dependency).
 */
export { mcpToolkit, type McpToolkit, type McpToolkitOptions } from './mcp/mcp-toolkit.js';
export type {
  McpConnect,
  McpStdioServer,
  McpHttpServer,
  McpTransportFactory,
} from './mcp/mcp-server-options.js';
export type { McpNeedsApproval, McpToolArguments } from './mcp/mcp-tool.js';
