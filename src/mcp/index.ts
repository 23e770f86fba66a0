export { mcpToolkit, type McpToolkit, type McpToolkitOptions } from './mcp-toolkit.js';
export type {
  McpConnect,
  McpStdioServer,
  McpHttpServer,
  McpTransportFactory,
} from './mcp-server-options.js';
export type { McpNeedsApproval, McpToolArguments } from './mcp-tool.js';
