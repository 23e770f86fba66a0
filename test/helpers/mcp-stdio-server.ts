import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildTestMcpServer } from './mcp-test-server.js';

/**
 * Child process: the test MCP server over stdio. Appends `<pid> start`, `<pid> call <tool>`
 * and `<pid> exit` lines to the file named by MCP_TEST_LOG, so tests count server-side calls
 * and see the process end.
 */
const logFile = process.env['MCP_TEST_LOG'];
const log = (event: string): void => {
  if (logFile) appendFileSync(logFile, `${process.pid} ${event}\n`);
};
process.on('exit', () => log('exit'));
// The client closes stdin to stop the server.
process.stdin.on('end', () => process.exit(0));
log('start');
await buildTestMcpServer(log).connect(new StdioServerTransport());
