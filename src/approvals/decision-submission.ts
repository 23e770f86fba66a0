import { hasDecisionInbox } from '../persistence/store-supports.js';
import type { DecisionInbox } from '../persistence/decision-inbox.js';
import type { SessionKey, SessionRecord, SessionStore } from '../persistence/session-store.js';
import { checkRunAgent } from '../actions/fits-check.js';
import type { Clock } from '../core/clock.js';
import { checkStoredDecisions } from '../actions/decision-checks.js';
import type { ApprovalDecision, RunState } from '../runs/run-state.js';
import type { RunNode } from '../runs/run-tree.js';

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
  checkRunAgent(key, record, agent);
  await submitStoredDecisions(store, key, record, () => decisions, clock.now());
}

/**
 * Records decisions on the stored run of `record` (the session `key`) in the store's decision
 * inbox, checked against that record first (`checkStoredDecisions`: nothing is recorded when
 * one does not fit); `decisions` reads the stored run, for decisions that name their call alone.
 * What `agent.submitDecisions` and the command line's decisions on a shared store share.
 */
export async function submitStoredDecisions(
  store: SessionStore & DecisionInbox,
  key: SessionKey,
  record: SessionRecord,
  decisions: (root: RunNode) => readonly ApprovalDecision[],
  at: number,
): Promise<void> {
  const checked = checkStoredDecisions(key, record, decisions, at);
  await store.submitDecisions({ key, runId: checked.runId, decisions: [...checked.decisions], at });
}
