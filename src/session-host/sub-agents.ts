import type { AgentDeps } from '../actors/agent-deps.js';
import { boundAgentDeps } from './bound-agent-deps.js';
import type { RunContext } from '../core/run-context.js';
import type { AnyTool } from '../tools/tool.js';
import type { BindingSource } from '../definition/agent-binding.js';
import type { AgentOptions } from '../definition/agent-options.js';
import type { DefinitionFingerprint } from '../definition/definition-fingerprint.js';

interface Bound {
  deps: AgentDeps;
  compatibleWith: AgentOptions<unknown>['compatibleWith'];
  definition: DefinitionFingerprint;
  release(): Promise<void>;
}

/**
 * The other agents one action may run: every agent reachable through sub-agent tools
 * (`agent.asTool`) and handoffs from the session's agent, found by name, each bound (toolkits created,
 * instructions resolved) the first time one of its runs takes a step and released with the
 * action. Names are unique in that graph: a sub-agent run stores only its agent's name.
 */
export class SubAgents {
  private agents: Map<string, BindingSource> | undefined;
  private readonly bound = new Map<string, Promise<Bound>>();

  constructor(
    private readonly rootName: string,
    private readonly rootTools: Iterable<AnyTool>,
    private readonly context: RunContext,
  ) {}

  /** The deps of the agent a sub-agent run's path ends with. */
  get(path: readonly string[]): Promise<AgentDeps> {
    return this.boundFor(path).then((b) => b.deps);
  }

  /** The definition fingerprint and `compatibleWith` of the agent a run's path ends with. */
  async definitionOf(path: readonly string[]): Promise<{
    definition: DefinitionFingerprint;
    compatibleWith: Bound['compatibleWith'];
  }> {
    const { definition, compatibleWith } = await this.boundFor(path);
    return { definition, compatibleWith };
  }

  private boundFor(path: readonly string[]): Promise<Bound> {
    const name = path[path.length - 1]!;
    let bound = this.bound.get(name);
    if (!bound) {
      bound = this.bind(name, path);
      this.bound.set(name, bound);
    }
    return bound;
  }

  /** Releases the toolkits of every sub-agent bound so far (none bound: nothing to wait for). */
  release(): Promise<void> | undefined {
    return this.bound.size === 0 ? undefined : this.releaseBound();
  }

  private async releaseBound(): Promise<void> {
    const all = await Promise.allSettled(this.bound.values());
    this.bound.clear();
    const released = await Promise.allSettled(
      all.flatMap((r) => (r.status === 'fulfilled' ? [r.value.release()] : [])),
    );
    const failed = released.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async bind(name: string, path: readonly string[]): Promise<Bound> {
    const agent = this.graph().get(name);
    if (!agent) {
      throw new TypeError(
        `Sub-agent "${path.join(' > ')}" is not among the sub-agent tools reachable from agent "${this.rootName}"`,
      );
    }
    const bound = await agent.bind(this.context);
    const { binding } = bound;
    const { options } = agent;
    return {
      release: () => bound.release(),
      compatibleWith: options.compatibleWith,
      definition: binding.definition,
      deps: {
        ...boundAgentDeps(options, binding),
        instructions: () => binding.instructions,
        modelName: () => undefined,
        modelSettings: options.modelSettings,
        definition: binding.storedDefinition,
      },
    };
  }

  /** The agents reachable through sub-agent tools and handoffs, by name (built once). */
  private graph(): Map<string, BindingSource> {
    if (this.agents) return this.agents;
    const agents = new Map<string, BindingSource>();
    const visit = (agent: BindingSource | undefined): void => {
      if (!agent) return;
      const known = agents.get(agent.options.name);
      if (known === agent) return;
      if (known) {
        throw new TypeError(
          `Two different agents are named "${agent.options.name}": the agents reachable from agent "${this.rootName}" need unique names`,
        );
      }
      agents.set(agent.options.name, agent);
      for (const t of agent.options.tools ?? []) visit(linkedAgent(t));
      for (const h of agent.options.handoffs ?? []) visit(h);
    };
    for (const t of this.rootTools) visit(linkedAgent(t));
    this.agents = agents;
    return agents;
  }
}

/** The agent a sub-agent or handoff tool leads to. */
function linkedAgent(t: AnyTool): BindingSource | undefined {
  return (t.subAgent?.agent ?? t.handoff?.agent) as BindingSource | undefined;
}
