import type { AuditVia } from '../persistence/audit-log.js';
import type { RunSnapshot } from '../runs/live-snapshots.js';
import type { ApprovalDecision } from '../runs/run-state.js';
import { runChain } from '../runs/run-tree.js';
import type { ActionContext } from './session-action.js';

/** Who decided, for the audit log, unless a decision names its own `by` and `via`. */
export interface Decider {
  by?: string | undefined;
  via?: AuditVia | undefined;
}

/**
 * Applies checked decisions to the loaded session's run tree: audits who decided what (written
 * with the save that applies them) and sends each to the run of the tree that holds its call.
 * `hold: true` records them only: the decided calls wait for a resume to run them
 * (`recordDecisions`); without it they run now (`continueRun`).
 */
export function sendDecisions(
  ctx: ActionContext,
  run: RunSnapshot,
  decisions: readonly ApprovalDecision[],
  who: Decider,
  { cause, hold }: { cause: string; hold: boolean },
): void {
  const { host } = ctx;
  host.log.audit(
    decisions.map((d) => ctx.audit.decision(run, d, { by: d.by ?? who.by, via: d.via ?? who.via })),
  );
  for (const d of decisions) {
    // checked before the load: each names a call pending in a run of the tree
    const runId = runChain(run, d.runId ?? run.context.runId).at(-1)?.context?.runId;
    const common = { callId: d.callId, always: d.always, runId, ...(hold ? { hold } : {}) };
    host.send(
      d.approve
        ? { type: 'APPROVE', ...common }
        : { type: 'REJECT', message: d.message, ...common },
      cause,
    );
  }
}
