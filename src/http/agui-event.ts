/**
 * The AG-UI events (protocol 1.0) the chat handler sends on its AG-UI route, as `@ag-ui/core`
 * defines them. Kept here so the package needs no AG-UI dependency; `test/http/` reads them
 * with AG-UI's own client and validates each with its schemas.
 */
export type AguiEvent =
  | { type: 'RUN_STARTED'; threadId: string; runId: string; protocolVersion: '1.0' }
  | {
      type: 'RUN_FINISHED';
      threadId: string;
      runId: string;
      result?: unknown;
      outcome:
        | { type: 'success' }
        | { type: 'interrupt'; interrupts: AguiInterrupt[] }
        | {
            type: 'cancelled';
          };
    }
  | { type: 'RUN_ERROR'; message: string; code: string }
  | { type: 'MESSAGES_SNAPSHOT'; messages: AguiMessage[] }
  | { type: 'STEP_STARTED'; stepName: string }
  | { type: 'STEP_FINISHED'; stepName: string }
  | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' }
  | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'TEXT_MESSAGE_END'; messageId: string }
  | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string; parentMessageId: string }
  | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
  | { type: 'TOOL_CALL_END'; toolCallId: string }
  | {
      type: 'TOOL_CALL_RESULT';
      messageId: string;
      toolCallId: string;
      content: string;
      role: 'tool';
      /** A failed call: `{ isError: true }`; a call this request rejected: `denied` too. */
      metadata?: { isError: true; denied?: true };
    };

/**
 * What a paused run waits for, as AG-UI's interrupt: one per tool call waiting for an approval,
 * its id the call id, answered by a resume entry `{ interruptId, status: 'resolved', payload:
 * { approved, message? } }` (`status: 'cancelled'` rejects the call).
 */
export interface AguiInterrupt {
  id: string;
  reason: 'tool_call';
  message: string;
  toolCallId: string;
  responseSchema: Record<string, unknown>;
  /** The approval's deadline (ISO 8601), when the tool has one. */
  expiresAt?: string;
  metadata: { toolName: string; agent: string };
}

/**
 * A message of a thread as AG-UI's `Message` has it (what `MESSAGES_SNAPSHOT` carries): a user
 * message, an assistant message with its text and tool calls, a tool call's result.
 */
export type AguiMessage =
  | { id: string; role: 'user'; content: string }
  | {
      id: string;
      role: 'assistant';
      content?: string;
      toolCalls?: {
        id: string;
        type: 'function';
        function: { name: string; arguments: string };
      }[];
    }
  | { id: string; role: 'tool'; toolCallId: string; content: string; error?: string };
