import { z } from 'zod';
import type { StreamDecision } from '../agent/agent-call-options.js';
import { checkIdLength } from '../core/id-limit.js';
import { HttpError } from './http-error.js';

/** A session id in a path or a body (its length: `checkIdLength`, 400 `ID_TOO_LONG`). */
export const SessionIdSchema = z.string().min(1);

/** `POST /chat` names its session in the body. */
export const SessionIdBodySchema = z.looseObject({ id: SessionIdSchema });

const UiPartSchema = z.looseObject({ type: z.string() });

const UiMessageSchema = z.looseObject({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(UiPartSchema),
});

/** What the AI SDK's `DefaultChatTransport` posts: the chat's id and its UI messages. */
export const ChatBodySchema = z.looseObject({
  id: SessionIdSchema.optional(),
  messages: z
    .array(UiMessageSchema, {
      error: 'expected a messages array ({ id, messages } as useChat sends)',
    })
    .min(1, { error: 'expected a non-empty messages array' }),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().optional(),
});

/** A plain message: `{ text }`. */
export const TextBodySchema = z.strictObject({ text: z.string().min(1).max(100_000) });

const DecisionSchema = z.strictObject({
  callId: z.string().min(1),
  approved: z.boolean(),
  message: z.string().max(10_000).optional(),
});

/** `POST .../approvals`: one decision, or several (`{ decisions }`). */
export const ApprovalsBodySchema = z.union(
  [DecisionSchema, z.strictObject({ decisions: z.array(DecisionSchema).min(1).max(100) })],
  {
    error: 'expected { callId, approved, message? } or { decisions: [{ callId, approved }, ...] }',
  },
);

/** What a message request asks: a new user message, or decisions on calls that wait. */
export type ChatTurn =
  | { kind: 'message'; text: string; messageId?: string | undefined }
  | { kind: 'decisions'; decisions: StreamDecision[] };

/**
 * Parses a body with a schema; a body that does not fit is a 400 `INVALID_BODY` naming the
 * first problem's path.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length ? ` at ${issue.path.join('.')}` : '';
  // zod's "Invalid input: expected string, received undefined" reads as "expected string, ..."
  const what = (issue?.message ?? 'refused').replace(/^Invalid input: /, '');
  throw new HttpError(400, 'INVALID_BODY', `Invalid body${where}: ${what}`);
}

/** The turn a message body asks for: `{ text }` or `useChat`'s last message. */
export function chatTurnOf(body: unknown): ChatTurn {
  if (typeof body === 'object' && body !== null && 'text' in body) {
    return { kind: 'message', text: parseBody(TextBodySchema, body).text };
  }
  const chat = parseBody(ChatBodySchema, body);
  if (chat.trigger === 'regenerate-message') {
    throw new HttpError(400, 'NOT_SUPPORTED', 'Regenerating a message is not supported');
  }
  const last = chat.messages[chat.messages.length - 1]!;
  if (last.role === 'user') {
    const text = last.parts
      .map((p) => (p.type === 'text' && typeof p['text'] === 'string' ? p['text'] : ''))
      .join('');
    if (!text) throw new HttpError(400, 'INVALID_BODY', 'The last user message has no text');
    // Its id answers once (`RunOptions.messageId`): a client's retry gets the same answer.
    if (!last.id) return { kind: 'message', text };
    checkIdLength('messageId', last.id);
    return { kind: 'message', text, messageId: last.id };
  }
  const decisions = last.parts.flatMap(decisionOfPart);
  if (last.role === 'assistant' && decisions.length) {
    return { kind: 'decisions', decisions: oneMeaning(decisions) };
  }
  throw new HttpError(
    400,
    'INVALID_BODY',
    'The last message is neither a user message nor an approval',
  );
}

const RespondedPartSchema = z.looseObject({
  state: z.literal('approval-responded'),
  toolCallId: z.string().min(1),
  approval: z.looseObject({ approved: z.boolean(), reason: z.string().max(10_000).optional() }),
});

/** The decision of a tool part `useChat`'s `addToolApprovalResponse` answered, if any. */
function decisionOfPart(part: unknown): StreamDecision[] {
  const parsed = RespondedPartSchema.safeParse(part);
  if (!parsed.success) return [];
  const { toolCallId, approval } = parsed.data;
  return [
    {
      callId: toolCallId,
      approve: approval.approved,
      ...(approval.reason === undefined || approval.approved ? {} : { message: approval.reason }),
    },
  ];
}

/** The decisions of an approvals body. */
export function decisionsOf(body: unknown): StreamDecision[] {
  const parsed = parseBody(ApprovalsBodySchema, body);
  const list = 'decisions' in parsed ? parsed.decisions : [parsed];
  return oneMeaning(
    list.map(({ callId, approved, message }) => ({
      callId,
      approve: approved,
      ...(message === undefined ? {} : { message }),
    })),
  );
}

/**
 * A request's decisions, one per call (a call id over `MAX_ID_LENGTH` is `ID_TOO_LONG`): the
 * same decision repeated counts once; a call both
 * approved and rejected (or rejected with two messages) is a 400 `CONFLICTING_DECISIONS`, and
 * nothing is decided (no entry wins over another).
 */
export function oneMeaning(decisions: readonly StreamDecision[]): StreamDecision[] {
  const byCall = new Map<string, StreamDecision>();
  for (const d of decisions) {
    checkIdLength('callId', d.callId);
    const seen = byCall.get(d.callId);
    if (!seen) byCall.set(d.callId, d);
    else if (seen.approve !== d.approve || seen.message !== d.message) {
      throw new HttpError(
        400,
        'CONFLICTING_DECISIONS',
        `Tool call "${d.callId}" is decided twice in this request, differently: send one decision per call`,
      );
    }
  }
  return [...byCall.values()];
}
