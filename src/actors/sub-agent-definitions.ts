import type { AgentDeps } from './agent-deps.js';
import type { JournaledStepDeps } from './journaled-step.js';

/**
 * The definition fingerprints of the sub-agents the answer's calls start, by tool name: each
 * child run records its agent's (bound here, as its first step would bind it). A sub-agent
 * that fails to bind gets none: its child run fails with that error when it starts. Without a
 * sub-agent call (the common case), the empty map at once, with no promise.
 */
export function subAgentDefinitions(
  deps: Pick<JournaledStepDeps, 'agentFor'>,
  agent: AgentDeps,
  path: readonly string[] | undefined,
  calls: readonly { name: string }[],
): Definitions | Promise<Definitions> {
  if (!calls.some(({ name }) => agent.tools.get(name)?.subAgent)) return new Map();
  return boundDefinitions(deps, agent, path, calls);
}

/** A sub-agent tool's definition fingerprint (absent: it failed to bind), by tool name. */
export type Definitions = Map<string, Readonly<Record<string, string>> | undefined>;

async function boundDefinitions(
  deps: Pick<JournaledStepDeps, 'agentFor'>,
  agent: AgentDeps,
  path: readonly string[] | undefined,
  calls: readonly { name: string }[],
): Promise<Definitions> {
  const out: Definitions = new Map();
  for (const { name } of calls) {
    const ref = agent.tools.get(name)?.subAgent;
    if (!ref || out.has(name)) continue;
    const child = [...(path ?? [agent.agentName]), ref.agent.name];
    const bound = await deps.agentFor(child).catch(() => undefined);
    out.set(name, bound?.definition);
  }
  return out;
}
