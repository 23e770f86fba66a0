import type { Agent } from '../agent/agent.js';
import type { StreamDecision } from '../agent/agent-call-options.js';
import { AgentStateError } from '../errors/agentstate-error.js';
import type { SessionKey, SessionStore } from '../persistence/session-store.js';
import { HttpError } from './http-error.js';

/** What the runtime answers a decision on a call no run waits on any more. */
const NOT_WAITING: ReadonlySet<string> = new Set([
  'NOTHING_TO_RESUME',
  'UNKNOWN_CALL',
  'STALE_DECISION',
]);

/**
 * The answer to decisions refused with `error` because no run waits on their calls: when one
 * of the calls was decided before (its result is in the session's history: it ran, or the
 * model read its rejection), a 409 `ALREADY_DECIDED` naming it, as a second decision on a
 * call that still waits gets; otherwise `error` itself.
 */
export async function decidedBefore(
  agent: Agent<unknown>,
  store: SessionStore,
  key: SessionKey,
  decisions: readonly StreamDecision[],
  error: unknown,
): Promise<unknown> {
  if (!(error instanceof AgentStateError) || !NOT_WAITING.has(error.code)) return error;
  try {
    const view = await agent.runtimeFor(store).getSession(key);
    const items = await store.readHistory(key, view.historyFrom, view.historyLength);
    const answered = new Set(items.flatMap((i) => (i.type === 'tool_result' ? [i.callId] : [])));
    const decided = decisions.find((d) => answered.has(d.callId));
    if (!decided) return error;
    return new HttpError(
      409,
      'ALREADY_DECIDED',
      `Tool call "${decided.callId}" was already decided: its result is in the session's history`,
    );
  } catch {
    return error;
  }
}
