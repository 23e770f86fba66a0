/**
 * The chunks of the AI SDK UI message stream protocol (`x-vercel-ai-ui-message-stream: v1`)
 * this handler sends, as the AI SDK's `uiMessageChunkSchema` defines them. Kept here so the
 * package needs no `ai` dependency; `test/http/` reads them with the AI SDK's own reader.
 */
export type UiMessageChunk =
  | { type: 'start'; messageId?: string }
  | { type: 'start-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'error'; errorText: string }
  | { type: 'finish-step' }
  | {
      type: 'finish';
      finishReason?: 'stop' | 'length' | 'tool-calls' | 'error' | 'interrupted' | 'other';
    };

/** A tool call's arguments as the UI shows them: the parsed JSON, else the text as it is. */
export function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
