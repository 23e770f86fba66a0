import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Content = CallToolResult['content'][number];

/** Bytes a base64 string decodes to. */
const base64Bytes = (data: string): number =>
  Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);

/** One content block as text: text as is, anything else summarised on one line. */
function contentText(block: Content): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const r = block.resource;
      if ('text' in r) return `[resource ${r.uri}]\n${r.text}`;
      return `[resource ${r.uri}: ${r.mimeType ?? 'binary'}, ${base64Bytes(r.blob)} bytes]`;
    }
  }
}

/**
 * The text the model reads for an MCP tool result: its content blocks joined by blank lines
 * (non-text blocks summarised, since tool outputs are text), or its `structuredContent` as
 * JSON when it has no content.
 */
export function mcpToolOutput(result: CallToolResult): string {
  const parts = (result.content ?? []).map(contentText);
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.join('\n\n');
}
