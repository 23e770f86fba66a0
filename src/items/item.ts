import { z } from 'zod';
import { UserContentPart } from './content-part.js';

/**
 * A message from the user: text, or parts (text, images, files) for a message that carries
 * more than text. Images and files are stored once, in the history log, like any item.
 */
export const UserMessageItem = z.lazy(() =>
  z.object({
    type: z.literal('message'),
    role: z.literal('user'),
    content: z.union([z.string(), z.array(UserContentPart).min(1)]),
  }),
);

/** Instructions given inside the conversation, with the weight of the app's developer. */
export const DeveloperMessageItem = z.lazy(() =>
  z.object({
    type: z.literal('message'),
    role: z.literal('developer'),
    content: z.string(),
  }),
);

/** A system message inside the conversation (besides the agent's own instructions). */
export const SystemMessageItem = z.lazy(() =>
  z.object({
    type: z.literal('message'),
    role: z.literal('system'),
    content: z.string(),
  }),
);

/** Text the assistant produced. */
export const AssistantMessageItem = z.lazy(() =>
  z.object({
    type: z.literal('message'),
    role: z.literal('assistant'),
    content: z.string(),
    agent: z.string().optional(),
  }),
);

/** The model asked for a tool to be called. `arguments` is the raw JSON text from the model. */
export const ToolCallItem = z.lazy(() =>
  z.object({
    type: z.literal('tool_call'),
    callId: z.string(),
    name: z.string(),
    arguments: z.string(),
    agent: z.string().optional(),
  }),
);

/** What a tool call returned (or why it could not run), sent back to the model. */
export const ToolResultItem = z.lazy(() =>
  z.object({
    type: z.literal('tool_result'),
    callId: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean().optional(),
  }),
);

/**
 * A reasoning model's reasoning (the Responses API's `reasoning` output item), kept so it can
 * be passed back with the next request as the API requires. `encryptedContent` is opaque to
 * us; `summary` holds the readable summary texts, when the model gave any. Models that have
 * no such item (Chat Completions) skip it when building their request.
 */
export const ReasoningItem = z.lazy(() =>
  z.object({
    type: z.literal('reasoning'),
    id: z.string().optional(),
    encryptedContent: z.string().optional(),
    summary: z.array(z.string()).optional(),
    agent: z.string().optional(),
  }),
);

/**
 * A summary of the history before position `upTo`, written by a `summarize` context window
 * (see `HistoryStrategy`). The model is sent the summary in place of those items; the items
 * themselves stay in the history. Only the runtime writes it: run input may not contain one.
 */
export const SummaryItem = z.lazy(() =>
  z.object({
    type: z.literal('summary'),
    content: z.string(),
    upTo: z.number().int().nonnegative(),
  }),
);

/**
 * One entry of a conversation. Plain JSON, stored as-is in the history log. Discriminated by
 * `type` (then `role`), so validating an item checks one branch instead of trying each in turn.
 */
export const Item = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.discriminatedUnion('role', [
      UserMessageItem,
      AssistantMessageItem,
      DeveloperMessageItem,
      SystemMessageItem,
    ]),
    ToolCallItem,
    ToolResultItem,
    ReasoningItem,
    SummaryItem,
  ]),
);

export type UserMessageItem = z.infer<typeof UserMessageItem>;
export type AssistantMessageItem = z.infer<typeof AssistantMessageItem>;
export type DeveloperMessageItem = z.infer<typeof DeveloperMessageItem>;
export type SystemMessageItem = z.infer<typeof SystemMessageItem>;
export type SummaryItem = z.infer<typeof SummaryItem>;
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

/** The text of a message's content: the string itself, or its text parts joined by newlines. */
export function contentText(content: string | readonly UserContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}
