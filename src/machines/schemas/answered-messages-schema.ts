import { z } from 'zod';

/**
 * How many answered message ids a session keeps (the latest, `RunOptions.messageId`): a retry
 * of an older message is a new turn. Bounded, so the session record, and each save, stays the
 * same size as history grows.
 */
export const MAX_ANSWERED_MESSAGES = 64;

/** A message id a session answered and the run that answers it (`AnsweredMessage`). */
export const AnsweredMessage = z.object({
  messageId: z.string().min(1),
  runId: z.string().min(1),
});

/** The stored shape of a session's answered message ids, each with the run that answers it. */
export const AnsweredMessages = z.array(AnsweredMessage).max(MAX_ANSWERED_MESSAGES);
