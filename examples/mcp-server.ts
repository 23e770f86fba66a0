/**
 * A small MCP server over stdio, written with the MCP SDK's own `McpServer`: the bundled
 * server `examples/mcp.ts` gives its agent. It converts temperatures. It reports what it does
 * on stderr (stdout carries the protocol).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const say = (text: string): void =>
  void process.stderr.write(`[mcp-server ${process.pid}] ${text}\n`);

const server = new McpServer({ name: 'units', version: '1.0.0' });
server.registerTool(
  'convert_temperature',
  {
    description: 'Converts a temperature between Celsius and Fahrenheit',
    inputSchema: {
      value: z.number().describe('the temperature to convert'),
      from: z.enum(['celsius', 'fahrenheit']).describe('the unit of `value`'),
    },
  },
  ({ value, from }) => {
    const converted = from === 'celsius' ? (value * 9) / 5 + 32 : ((value - 32) * 5) / 9;
    const text = `${value} °${from === 'celsius' ? 'C' : 'F'} = ${converted.toFixed(1)} °${from === 'celsius' ? 'F' : 'C'}`;
    say(`convert_temperature ${JSON.stringify({ value, from })} -> ${text}`);
    return { content: [{ type: 'text', text }] };
  },
);

// The client closes stdin to stop the server.
process.stdin.on('end', () => {
  say('stdin closed, stopping');
  process.exit(0);
});
await server.connect(new StdioServerTransport());
say('ready');
