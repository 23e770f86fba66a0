import type { Agent } from '../agent/agent.js';
import { RunContext } from '../core/run-context.js';
import { AgentBinding } from '../definition/agent-binding.js';
import type { DefinitionFingerprint } from '../definition/definition-fingerprint.js';
import { definitionOf } from '../recovery/model-request-rebuild.js';

/**
 * The definition fingerprint (part names to hashes, `definitionFingerprint`) of the agent
 * named `name` in `agent`'s tree (itself, a sub-agent or a handoff's agent) as defined now:
 * bound once to a context of `scope` (its toolkits created and closed), as a run binds it.
 * `undefined` when the tree has no agent of that name.
 */
export async function agentFingerprint(
  agent: Agent<unknown>,
  name: string,
  scope: { sessionId?: string | undefined; userId?: string | undefined } = {},
): Promise<DefinitionFingerprint | undefined> {
  const options = definitionOf([agent], name);
  if (!options) return undefined;
  const binding = await AgentBinding.create(options, new RunContext(scope));
  try {
    return { ...binding.definition };
  } finally {
    await binding.close();
  }
}
