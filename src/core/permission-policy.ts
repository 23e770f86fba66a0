import type { RunContext } from './run-context.js';
import { withRunContext } from './run-context-storage.js';
import { PermissionCheckError } from '../errors/permission-check-error.js';

/** What a permission policy decides for one tool call. */
export type PermissionDecision = 'allow' | 'ask' | { deny: string };

/** The call a permission policy is asked about. */
export interface PermissionCall {
  /** The tool's name. */
  name: string;
  callId: string;
  /** The arguments, validated by the tool's schema. */
  arguments: unknown;
}

/** Who and where: the run's user and session, and the agents down to the one calling. */
export interface PermissionScope {
  userId: string | undefined;
  sessionId: string;
  runId: string;
  /** The top-level agent first, the agent making the call last. */
  agentPath: string[];
}

/**
 * Decides, before every tool call (sub-agents' included), whether it may run: `'allow'`,
 * `'ask'` (the call waits for a human's approval, like `needsApproval`) or `{ deny: reason }`
 * (the call never runs; the model reads the reason as the tool's error). The decision is
 * journaled: a resumed run never asks again. `getRunContext()` inside `check` returns the run's
 * context (a sub-agent's, with its overrides). A `check` that throws fails the run with
 * `PermissionCheckError` and no call of that turn runs.
 * @example
 * const permissions: PermissionPolicy = {
 *   check: (call, { userId }) =>
 *     call.name === 'refund' && userId !== 'admin' ? { deny: 'only admins refund' } : 'allow',
 * };
 */
export interface PermissionPolicy {
  check(
    call: PermissionCall,
    scope: PermissionScope,
  ): PermissionDecision | Promise<PermissionDecision>;
}

/** A decision as the journal keeps it. */
export interface JournaledPermission {
  permission: 'allow' | 'ask' | 'deny';
  /** Why the call was denied. */
  denyReason?: string | undefined;
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * Asks every policy in turn (the runtime's, then the agents' from the top-level one down) and
 * keeps the strictest decision: deny over ask over allow; the first deny ends the asking.
 * Each `check` runs inside the run's context.
 */
export async function evaluatePermissions(
  policies: readonly PermissionPolicy[],
  call: PermissionCall,
  scope: PermissionScope,
  context: RunContext,
): Promise<JournaledPermission> {
  let result: JournaledPermission = { permission: 'allow' };
  for (const policy of policies) {
    let decision: unknown;
    try {
      decision = await withRunContext(context, () => policy.check(call, scope));
    } catch (error) {
      throw new PermissionCheckError(call.name, error, { runId: scope.runId });
    }
    const next = journaled(decision);
    if (!next) {
      const got = JSON.stringify(decision) ?? String(decision);
      throw new PermissionCheckError(
        call.name,
        new TypeError(`check returned ${got}; expected 'allow', 'ask' or { deny: reason }`),
        { runId: scope.runId },
      );
    }
    if (RANK[next.permission] > RANK[result.permission]) result = next;
    if (result.permission === 'deny') break;
  }
  return result;
}

function journaled(decision: unknown): JournaledPermission | undefined {
  if (decision === 'allow' || decision === 'ask') return { permission: decision };
  const reason = (decision as { deny?: unknown } | null)?.deny;
  if (typeof reason === 'string') return { permission: 'deny', denyReason: reason };
  return undefined;
}

/** Whether `value` has the shape of a policy (for option checks). */
export function isPermissionPolicy(value: unknown): value is PermissionPolicy {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { check?: unknown }).check === 'function'
  );
}
