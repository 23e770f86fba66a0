import type { Message, SendMessageRequest } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { checkIdLength } from '../core/id-limit.js';
import { newId } from '../core/new-id.js';
import { isObject } from '../validation/option-checks.js';
import { CONVENTION_KEY, type A2ADecision } from './a2a-convention.js';

/** What a `SendMessage` asks: a new message to a session, or an answer to a paused task. */
export type A2ATurn =
  | { kind: 'message'; sessionId: string; messageId: string; text: string }
  | {
      kind: 'answer';
      taskId: string;
      messageId: string;
      /** The decisions of a data part; `undefined`: `text` decides every pending call. */
      decisions: A2ADecision[] | undefined;
      /** A text answer: `approve` / `reject`, optionally followed by a message. */
      text: { decision: 'approve' | 'reject'; message: string | undefined } | undefined;
    };

const ANSWER = /^\s*(approve|approved|yes|reject|rejected|no)\b[\s:,.-]*([\s\S]*)$/i;

/**
 * The turn a `SendMessage` request carries. A message with `taskId` answers that task (the
 * convention's `decisions` data part, else a text `approve` / `reject`); one without starts a
 * run in the session `contextId` (a new session id when absent). Malformed (no message, no
 * message id, no text, a bad decisions part): the A2A `RequestMalformedError`.
 */
export function turnOf(request: SendMessageRequest): A2ATurn {
  const message = request.message;
  if (!message) throw malformed('params.message is required');
  if (message.messageId === '') throw malformed('params.message.messageId is required');
  checkIdLength('messageId', message.messageId);
  const text = textOf(message);
  if (message.taskId !== '') {
    const decisions = decisionsOf(message);
    const answer = decisions ? undefined : textAnswerOf(text);
    if (!decisions && !answer) {
      throw malformed(
        "An answer to a task is a data part { agentstate: { decisions } } or a text starting with 'approve' or 'reject'",
      );
    }
    return {
      kind: 'answer',
      taskId: message.taskId,
      messageId: message.messageId,
      decisions,
      text: answer,
    };
  }
  if (text.trim() === '') throw malformed('The message has no text part');
  const sessionId = message.contextId === '' ? newId() : message.contextId;
  checkIdLength('contextId', sessionId);
  return { kind: 'message', sessionId, messageId: message.messageId, text };
}

function malformed(message: string): Error {
  return new RequestMalformedError(message);
}

function textOf(message: Message): string {
  return message.parts
    .flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []))
    .join('\n');
}

function textAnswerOf(
  text: string,
): NonNullable<Extract<A2ATurn, { kind: 'answer' }>['text']> | undefined {
  const match = ANSWER.exec(text);
  if (!match) return undefined;
  const word = match[1]!.toLowerCase();
  const decision = word.startsWith('approve') || word === 'yes' ? 'approve' : 'reject';
  const rest = match[2]!.trim();
  return { decision, message: rest === '' ? undefined : rest };
}

/** The convention's decisions, if a data part carries them; a bad one is malformed. */
function decisionsOf(message: Message): A2ADecision[] | undefined {
  for (const part of message.parts) {
    if (part.content?.$case !== 'data') continue;
    const value: unknown = part.content.value;
    if (!isObject(value)) continue;
    const convention = value[CONVENTION_KEY];
    const list = isObject(convention) ? convention['decisions'] : undefined;
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) {
      throw malformed('agentstate.decisions must be a non-empty array');
    }
    return list.map((d: unknown, i) => {
      const ok =
        isObject(d) &&
        typeof d['callId'] === 'string' &&
        d['callId'] !== '' &&
        (d['decision'] === 'approve' || d['decision'] === 'reject') &&
        (d['message'] === undefined || typeof d['message'] === 'string');
      if (!ok) {
        throw malformed(
          `agentstate.decisions[${i}] must be { callId, decision: 'approve' | 'reject', message? }`,
        );
      }
      const { callId, decision, message: why } = d as unknown as A2ADecision;
      return { callId, decision, ...(why === undefined ? {} : { message: why }) };
    });
  }
  return undefined;
}
