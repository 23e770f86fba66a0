import type { Agent } from '../agent/agent.js';
import { MessageAnsweredError } from '../errors/message-answered-error.js';
import { RunInProgressError } from '../errors/session-errors.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { answeringRun } from '../machines/answered-messages.js';
import { HttpError } from './http-error.js';

/**
 * Whether `error`, from sending a message with `messageId`, says the session already answered
 * that id or is answering it, with the session's current (else last) run: then its answer is
 * what `agent.attach` reads (its journaled steps, then live while it runs, then how it ended),
 * and a client that retries gets the answer it missed. A message refused because another
 * process holds the session counts when the stored session names the id. The answering run no
 * longer the session's current or last one: 409 `MESSAGE_ANSWERED`.
 */
export async function answeredBefore(
  agent: Agent<unknown>,
  store: SessionStore,
  key: SessionKey,
  messageId: string,
  error: unknown,
): Promise<boolean> {
  let runId: string | undefined;
  if (error instanceof MessageAnsweredError) runId = error.runId;
  else if (error instanceof RunInProgressError && error.elsewhere) {
    runId = answeringRun((await store.load(key)).snapshot, messageId);
  }
  if (runId === undefined) return false;
  const view = await agent.runtimeFor(store).getSession(key);
  if (runId !== view.runStatus?.runId) {
    throw new HttpError(
      409,
      'MESSAGE_ANSWERED',
      `Message "${messageId}" was answered by an earlier run of session "${key.sessionId}": ` +
        'read its answer from the session history',
    );
  }
  return true;
}
