import type { z } from 'zod';
import {
  MAX_ANSWERED_MESSAGES,
  type AnsweredMessage as AnsweredMessageSchema,
} from './schemas/answered-messages-schema.js';

/**
 * A message id a session answered and the run that answers it (`RunOptions.messageId`): kept
 * in the session's context, so every process reads it with the session record.
 */
export type AnsweredMessage = z.output<typeof AnsweredMessageSchema>;

/**
 * The run that answers `messageId` in a persisted session snapshot (a stored record's), if it
 * is one of the ids the session keeps.
 */
export function answeringRun(snapshot: unknown, messageId: string): string | undefined {
  const { context } = (snapshot ?? {}) as {
    context?: { answered?: readonly AnsweredMessage[] | undefined };
  };
  return context?.answered?.find((a) => a.messageId === messageId)?.runId;
}

/** `answered` with `messageId` answered by `runId` added, the oldest dropped past the bound. */
export function withAnswered(
  answered: readonly AnsweredMessage[] | undefined,
  messageId: string,
  runId: string,
): AnsweredMessage[] {
  return [...(answered ?? []), { messageId, runId }].slice(-MAX_ANSWERED_MESSAGES);
}
