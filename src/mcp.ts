/**
 * MCP tools: `mcpToolkit` turns an MCP server's tools into a toolkit. A subpath of its own so
 * the root import never loads `@modelcontextprotocol/sdk` (an optional peer dependency).
 */
export * from './mcp/index.js';
