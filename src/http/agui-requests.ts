import { z } from 'zod';
import type { StreamDecision } from '../agent/agent-call-options.js';
import { oneMeaning, parseBody, SessionIdSchema, type ChatTurn } from './chat-requests.js';
import { checkIdLength } from '../core/id-limit.js';
import { HttpError } from './http-error.js';

/** The longest message text, as `{ text }` bodies allow. */
const MAX_TEXT = 100_000;

const MessageSchema = z.looseObject({
  id: z.string().max(256),
  role: z.enum(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']),
});

const ResumeEntrySchema = z.looseObject({
  interruptId: z.string().min(1),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

/** The answer to an approval interrupt: `{ approved, message? }`. */
const ApprovalPayloadSchema = z.looseObject({
  approved: z.boolean(),
  message: z.string().max(10_000).optional(),
});

/**
 * What AG-UI's `HttpAgent` posts (`RunAgentInput`), the parts the handler reads: `threadId`
 * (the session id), `runId` (the client's, a prefix of the message ids it gets back),
 * `messages`, `resume`. Tools, context, state and forwarded props are the client's own and
 * not read: the agent's tools run on the server.
 */
export const RunAgentInputSchema = z.looseObject({
  threadId: SessionIdSchema,
  runId: z.string().min(1),
  messages: z.array(MessageSchema).max(10_000),
  resume: z.array(ResumeEntrySchema).max(100).optional(),
});

/** A checked AG-UI run input. */
export type AguiRunInput = z.infer<typeof RunAgentInputSchema>;

/**
 * The AG-UI run input of a body; a body that does not fit is a 400 `INVALID_BODY`, an id over
 * `MAX_ID_LENGTH` 400 `ID_TOO_LONG`.
 */
export function aguiInputOf(body: unknown): AguiRunInput {
  const input = parseBody(RunAgentInputSchema, body);
  checkIdLength('threadId', input.threadId);
  checkIdLength('runId', input.runId);
  return input;
}

/**
 * The turn an AG-UI run input asks for: resume entries decide the calls their interrupts name
 * (`resolved` with `{ approved, message? }`; `cancelled` rejects the call); otherwise the last
 * message, a user message, is sent (its text; earlier messages are the session's history,
 * which the server keeps). A tool message last (a client-side tool's result) is 400
 * `NOT_SUPPORTED`.
 */
export function aguiTurnOf(input: AguiRunInput): ChatTurn {
  if (input.resume?.length) {
    return { kind: 'decisions', decisions: oneMeaning(input.resume.map(decisionOf)) };
  }
  const last = input.messages[input.messages.length - 1];
  if (last?.role === 'tool') {
    throw new HttpError(
      400,
      'NOT_SUPPORTED',
      "Client-side tools are not supported: the agent's tools run on the server",
    );
  }
  if (last?.role !== 'user') {
    throw new HttpError(
      400,
      'INVALID_BODY',
      'The last message is not a user message and nothing is resumed',
    );
  }
  const text = textOf(last['content']);
  if (!text) throw new HttpError(400, 'INVALID_BODY', 'The last user message has no text');
  if (text.length > MAX_TEXT) {
    throw new HttpError(400, 'INVALID_BODY', 'The last user message is too long');
  }
  // Its id answers once (`RunOptions.messageId`), as `POST /chat`'s.
  return { kind: 'message', text, ...(last.id ? { messageId: last.id } : {}) };
}

/** A user message's text: its content string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) =>
      typeof p === 'object' &&
      p !== null &&
      'type' in p &&
      p.type === 'text' &&
      'text' in p &&
      typeof p.text === 'string'
        ? p.text
        : '',
    )
    .join('');
}

/** The decision a resume entry makes on the call its interrupt names. */
function decisionOf(entry: z.infer<typeof ResumeEntrySchema>, i: number): StreamDecision {
  if (entry.status === 'cancelled') return { callId: entry.interruptId, approve: false };
  const parsed = ApprovalPayloadSchema.safeParse(entry.payload);
  if (!parsed.success) {
    throw new HttpError(
      400,
      'INVALID_BODY',
      `Invalid body at resume.${i}.payload: expected { approved: boolean, message?: string }`,
    );
  }
  const { approved, message } = parsed.data;
  return {
    callId: entry.interruptId,
    approve: approved,
    ...(message === undefined || approved ? {} : { message }),
  };
}
