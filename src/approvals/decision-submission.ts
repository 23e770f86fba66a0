import { hasDecisionInbox } from '../persistence/store-supports.js';
import type { SessionStore } from '../persistence/session-store.js';
import { checkRunAgent } from '../actions/fits-check.js';
import type { Clock } from '../core/clock.js';
import { checkStoredDecisions } from '../actions/decision-checks.js';
import type { RunState } from '../runs/run-state.js';

/**
 * Records the decisions made on `state` in the store's decision inbox, for whichever process
 * runs the scheduler (`startScheduler`) to apply: nothing runs here. They are checked against
 * the stored run first, with the same typed errors as `resume` (`StaleDecisionError`,
 * `UnknownCallError`, `ApprovalExpiredError`, `NothingToResumeError`, `WrongAgentError` when
 * `agent` does not run the session's run), and nothing is recorded then. The scheduler checks them again when it applies them, so a submission that another
 * decision or a deadline overtook is never applied twice.
 */
export async function submitDecisions(
  store: SessionStore,
  clock: Clock,
  state: RunState,
  agent: string,
): Promise<void> {
  if (!hasDecisionInbox(store)) {
    throw new TypeError(
      'agent.submitDecisions(): the store keeps no decision inbox (use PostgresSessionStore, or agent.resume(state) in this process)',
    );
  }
  const decisions = state.decisionsToApply();
  if (decisions.length === 0) {
    throw new TypeError(
      'agent.submitDecisions(): the RunState holds no decisions (approve or reject first)',
    );
  }
  const key = { sessionId: state.sessionId, userId: state.userId };
  const record = await store.load(key);
  const at = clock.now();
  checkRunAgent(key, record, agent);
  const { runId } = checkStoredDecisions(key, record, () => decisions, at);
  await store.submitDecisions({ key, runId, decisions, at });
}
