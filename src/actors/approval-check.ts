import { withRunContext } from '../core/run-context-storage.js';
import type { ApprovalCheckInput, ApprovalCheckOutput } from '../machines/step-actor-io.js';
import { ApprovalCheckError } from '../errors/run-errors.js';
import { parseToolArguments } from '../tools/invoke-tool.js';
import { evaluatePermissions, type JournaledPermission } from '../core/permission-policy.js';
import type { PermissionPolicy } from '../core/permission-policy.js';
import { permissionsFor } from './call-permissions.js';
import { journaledStep, type DepsOf, type JournaledStepDeps } from './journaled-step.js';
import { stepEntry } from './step-timing.js';

/** What an approval check uses (besides its input): wired in session-host/run-wiring.ts. */
export interface ApprovalCheckDeps extends JournaledStepDeps {
  /** The session agent's name: the agent path a policy reads for the session's own run. */
  agentName: string;
  /**
   * The permission policies of every call in the session: the runtime's, then the session
   * agent's (a sub-agent's own policy is added for its calls).
   */
  sessionPermissions: readonly PermissionPolicy[];
}

/**
 * Evaluates the permission policies and `needsApproval` once per call and journals the
 * decisions, so a restore never re-evaluates them. A call the policy denies needs no approval
 * (it will not run); one it asks about waits for a human. Calls with arguments that fail
 * validation skip both: they will not run.
 */
export function approvalCheck(depsOf: DepsOf<ApprovalCheckDeps>) {
  return journaledStep<ApprovalCheckOutput, ApprovalCheckInput>(
    async ({ input, signal, system }) => {
      const deps = depsOf(system);
      const timing = deps.stepStarted(input.runId, input.step, {
        kind: 'approval',
        name: input.calls.map((c) => c.name).join(', '),
        ...(input.calls.length === 1 ? { callId: input.calls[0]!.callId } : {}),
      });
      const hit = await deps.log.find(input.runId, input.step);
      if (hit) return hit.output as ApprovalCheckOutput;
      const turn = deps.recoveryTurn(input.runId, input.step, signal);
      if (turn) await turn;
      await deps.durable('approval');
      const agent = await deps.agentFor(input.path, input.agent);
      const context = deps.contextFor(input.runId);
      const now = deps.clock.now();
      const policies = permissionsFor(deps.sessionPermissions, agent);
      const agentPath = input.path ?? [deps.agentName, ...(input.agent ? [input.agent] : [])];
      const scope = { userId: context.userId, sessionId: context.sessionId!, runId: input.runId };
      const decisions = await Promise.all(
        input.calls.map(async (call) => {
          const t = agent.tools.get(call.name);
          const parsed = t ? parseToolArguments(t, call.arguments) : undefined;
          const id = { callId: call.callId, step: call.step };
          if (!t || !parsed?.ok) return { ...id, needsApproval: false };
          let permission: JournaledPermission | undefined;
          if (policies.length) {
            const asked = { name: t.name, callId: call.callId, arguments: parsed.args };
            permission = await evaluatePermissions(
              policies,
              asked,
              { ...scope, agentPath },
              context,
            );
            if (permission.permission === 'deny')
              return { ...id, needsApproval: false, ...permission };
          }
          const rule = t.needsApproval;
          let needsApproval: boolean;
          if (permission?.permission === 'ask') needsApproval = true;
          else
            try {
              needsApproval =
                typeof rule === 'function'
                  ? await withRunContext(context, () => rule(parsed.args, context))
                  : rule;
            } catch (error) {
              throw new ApprovalCheckError(t.name, error, { runId: input.runId });
            }
          const deadline =
            needsApproval && agent.approvalTimeoutMs !== undefined
              ? now + agent.approvalTimeoutMs
              : undefined;
          return { ...id, needsApproval, deadline, ...permission };
        }),
      );
      const output: ApprovalCheckOutput = { decisions };
      deps.log.record(stepEntry(input, 'approval', output, deps.clock.now(), timing));
      return output;
    },
    depsOf,
  );
}
