import type { PermissionPolicy } from '../core/permission-policy.js';
import type { AgentDeps } from './agent-deps.js';

/** The permission policies of a call of `agent`: the session's, and the agent's own. */
export function permissionsFor(
  sessionPermissions: readonly PermissionPolicy[],
  agent: AgentDeps,
): readonly PermissionPolicy[] {
  const own = agent.permissions;
  return own && !sessionPermissions.includes(own)
    ? [...sessionPermissions, own]
    : sessionPermissions;
}

/** Whether any permission policy covers the calls of `agent` (every call is then checked). */
export function hasPermissions(
  sessionPermissions: readonly PermissionPolicy[],
  agent: AgentDeps,
): boolean {
  return sessionPermissions.length > 0 || agent.permissions !== undefined;
}
