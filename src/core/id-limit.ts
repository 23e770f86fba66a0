import { IdTooLongError } from '../errors/id-too-long-error.js';

/**
 * The longest id, in characters (UTF-16 code units): session ids, user ids, run ids and every
 * other id that names stored data. One limit everywhere.
 */
export const MAX_ID_LENGTH = 256;

/**
 * Refuses an id longer than `MAX_ID_LENGTH` (`IdTooLongError`, `ID_TOO_LONG`); `what` names it
 * (`sessionId`, `userId`, `runId`). The one length check of ids: every key a store builds goes
 * through it, and the entry points call it first.
 */
export function checkIdLength(what: string, id: string): void {
  if (id.length > MAX_ID_LENGTH) throw new IdTooLongError(what, id.length, MAX_ID_LENGTH);
}
