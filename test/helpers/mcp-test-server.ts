import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** What the test servers tell about themselves: each tool call, by tool name. */
export type McpServerLog = (event: string) => void;

/**
 * An MCP server built with the SDK's own `McpServer`, with the tools the MCP tests call:
 * `add` (numbers), `fail` (answers `isError`), `picture` (an image and text), `attachments` (audio and
 * resources), `stats` (structured content only), `hang` (never
 * answers), and `crash` (its process exits mid-call; stdio only).
 */
export function buildTestMcpServer(log: McpServerLog): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number().int().min(0) },
    },
    ({ a, b }) => {
      log('call add');
      return { content: [{ type: 'text', text: String(a + b) }] };
    },
  );
  server.registerTool('fail', { description: 'Always fails' }, () => {
    log('call fail');
    return { isError: true, content: [{ type: 'text', text: 'the disk is full' }] };
  });
  server.registerTool('picture', { description: 'Draws a picture' }, () => {
    log('call picture');
    return {
      content: [
        { type: 'text', text: 'Here is a red dot.' },
        { type: 'image', mimeType: 'image/png', data: Buffer.from('12345678').toString('base64') },
      ],
    };
  });
  server.registerTool('attachments', { description: 'Answers with every kind of content' }, () => {
    log('call attachments');
    return {
      content: [
        { type: 'audio', mimeType: 'audio/wav', data: Buffer.from('abcd').toString('base64') },
        { type: 'resource_link', uri: 'file:///notes.txt', name: 'notes' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'alpha' } },
        {
          type: 'resource',
          resource: { uri: 'file:///b.bin', mimeType: 'application/zip', blob: 'AAAA' },
        },
      ],
    };
  });
  server.registerTool(
    'stats',
    { description: 'Structured content only', outputSchema: { mean: z.number() } },
    () => {
      log('call stats');
      return { content: [], structuredContent: { mean: 2.5 } };
    },
  );
  server.registerTool('hang', { description: 'Never answers' }, () => {
    log('call hang');
    return new Promise<never>(() => undefined);
  });
  server.registerTool('crash', { description: 'Stops the server process' }, () => {
    log('call crash');
    process.exit(3);
  });
  return server;
}
