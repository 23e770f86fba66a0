import type { WorkflowInfo } from '../../workflows/workflow-info.js';
import { json } from './cli-format.js';
import type { CommandContext } from './command.js';
import { stateText } from './state-text.js';

/**
 * Prints what a command on an instance came to: `queued` in its inbox for the process hosting
 * it, or applied by the app's host (`--module`), with the state it reached. `what` says what it
 * was (`event PAID`, `cancel`), `extra` goes into `--json` as it is.
 */
export function printOutcome(
  ctx: CommandContext,
  id: string,
  what: string,
  outcome: { queued: string } | { applied: WorkflowInfo },
  extra: Record<string, unknown>,
): void {
  if (ctx.json) {
    ctx.io.out(
      json(
        'queued' in outcome
          ? { workflowId: id, userId: ctx.user, ...extra, queued: true, messageId: outcome.queued }
          : {
              workflowId: id,
              userId: ctx.user,
              ...extra,
              applied: true,
              workflow: outcome.applied,
            },
      ),
    );
    return;
  }
  if ('queued' in outcome) {
    ctx.io.out(
      `${what} queued in the inbox of workflow ${id}: the process that hosts it applies it, once\n`,
    );
    return;
  }
  const w = outcome.applied;
  const status = w.cancelled ? 'cancelled' : w.status;
  ctx.io.out(`${what} applied to workflow ${id}: ${stateText(w.value)} (${status})\n`);
}
