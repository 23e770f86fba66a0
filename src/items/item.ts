import { z } from 'zod';

/** A message from the user. */
export const UserMessageItem = z.object({
  type: z.literal('message'),
  role: z.literal('user'),
  content: z.string(),
});

/** Text the assistant produced. */
export const AssistantMessageItem = z.object({
  type: z.literal('message'),
  role: z.literal('assistant'),
  content: z.string(),
  agent: z.string().optional(),
});

/** The model asked for a tool to be called. `arguments` is the raw JSON text from the model. */
export const ToolCallItem = z.object({
  type: z.literal('tool_call'),
  callId: z.string(),
  name: z.string(),
  arguments: z.string(),
  agent: z.string().optional(),
});

/** What a tool call returned (or why it could not run), sent back to the model. */
export const ToolResultItem = z.object({
  type: z.literal('tool_result'),
  callId: z.string(),
  name: z.string(),
  output: z.string(),
  isError: z.boolean().optional(),
});

/**
 * A reasoning model's reasoning (the Responses API's `reasoning` output item), kept so it can
 * be passed back with the next request as the API requires. `encryptedContent` is opaque to
 * us; `summary` holds the readable summary texts, when the model gave any. Models that have
 * no such item (Chat Completions) skip it when building their request.
 */
export const ReasoningItem = z.object({
  type: z.literal('reasoning'),
  id: z.string().optional(),
  encryptedContent: z.string().optional(),
  summary: z.array(z.string()).optional(),
  agent: z.string().optional(),
});

/**
 * One entry of a conversation. Plain JSON, stored as-is in the history log. Discriminated by
 * `type` (then `role`), so validating an item checks one branch instead of trying each in turn.
 */
export const Item = z.discriminatedUnion('type', [
  z.discriminatedUnion('role', [UserMessageItem, AssistantMessageItem]),
  ToolCallItem,
  ToolResultItem,
  ReasoningItem,
]);

export type UserMessageItem = z.infer<typeof UserMessageItem>;
export type AssistantMessageItem = z.infer<typeof AssistantMessageItem>;
export type ToolCallItem = z.infer<typeof ToolCallItem>;
export type ToolResultItem = z.infer<typeof ToolResultItem>;
export type ReasoningItem = z.infer<typeof ReasoningItem>;
export type Item = z.infer<typeof Item>;

/** What callers may pass as run input: a string (one user message) or items. */
export type RunInput = string | Item[];

/** Normalises run input into items. */
export function toInputItems(input: RunInput): Item[] {
  return typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
}
