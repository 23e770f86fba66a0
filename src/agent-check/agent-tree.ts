import type { AgentOptions } from '../definition/agent-options.js';
import { DefinitionCache } from '../definition/definition-cache.js';
import { toolRoster, type ToolkitTools } from '../definition/tool-roster.js';
import { DEFAULT_MAX_SUB_AGENT_DEPTH } from '../session-host/host-deps.js';
import type { AnyTool } from '../tools/tool.js';
import type { AgentLoop, LoopBound, OpaqueSource, ToolKind } from './agent-certificate.js';
import { toolApproval, type ToolApproval } from './tool-approval.js';

/** An agent as the check reads it: its name and options (an `Agent`). */
export interface CheckedSource {
  readonly name: string;
  readonly options: AgentOptions<unknown>;
}

/** What the check is given besides the agent. */
export interface SpecialiseOptions {
  /** How deep sub-agent runs are followed. @default the agent's `maxSubAgentDepth` (5) */
  maxDepth?: number | undefined;
  /** The tools of toolkits, by toolkit name, for toolkits known only once connected. */
  toolkitTools?: Readonly<Record<string, readonly AnyTool[]>> | undefined;
}

/** A tool of an agent, as the chart's states hold it. */
export interface ChartTool {
  readonly tool: AnyTool;
  readonly kind: ToolKind;
  readonly approval: ToolApproval;
}

/** An agent of the tree, as a run reaches it. */
export interface ChartAgent {
  readonly agentPath: string[];
  readonly via: 'root' | 'sub-agent' | 'handoff';
  readonly options: AgentOptions<unknown>;
}

/** The agent a sub-agent or handoff tool leads to. */
export const linkedAgent = (t: AnyTool): CheckedSource | undefined =>
  (t.subAgent?.agent ?? t.handoff?.agent) as CheckedSource | undefined;

const pathKey = (path: readonly string[]): string => JSON.stringify(path);

/**
 * The agent tree under a checked agent, as the chart is built from it: agents by name (unique,
 * as the runtime needs them), each agent's tools with their approval, the agents each run
 * reaches, the loops and opaque toolkits found on the way.
 */
export class AgentTree {
  /** How deep sub-agent runs are followed. */
  readonly maxSubAgentDepth: number;
  /** The bound of a sub-agent recursion. */
  readonly depthBound: LoopBound;
  private readonly shared = new DefinitionCache();
  private readonly byName = new Map<string, CheckedSource>();
  private readonly tools = new Map<CheckedSource, ChartTool[]>();
  private readonly reached: ChartAgent[] = [];
  private readonly loopsFound = new Map<string, AgentLoop>();
  private readonly opaqueFound = new Map<string, OpaqueSource>();
  private readonly toolkitsSeen = new Set<string>();

  constructor(
    readonly root: CheckedSource,
    private readonly options: SpecialiseOptions,
  ) {
    this.maxSubAgentDepth =
      options.maxDepth ?? root.options.maxSubAgentDepth ?? DEFAULT_MAX_SUB_AGENT_DEPTH;
    this.depthBound = {
      option: 'maxSubAgentDepth',
      value: this.maxSubAgentDepth,
      isDefault: options.maxDepth === undefined && root.options.maxSubAgentDepth === undefined,
    };
    this.known(root);
  }

  get agents(): readonly ChartAgent[] {
    return this.reached;
  }

  get loops(): AgentLoop[] {
    return [...this.loopsFound.values()];
  }

  get opaque(): OpaqueSource[] {
    return [...this.opaqueFound.values()];
  }

  /** `agent`, checked to be the only one of its name in the tree. */
  known(agent: CheckedSource): CheckedSource {
    const other = this.byName.get(agent.name);
    if (other && other !== agent) {
      throw new TypeError(
        `checkAgent(): two different agents are named "${agent.name}": the agents reachable from agent "${this.root.name}" need unique names`,
      );
    }
    this.byName.set(agent.name, agent);
    return agent;
  }

  /**
   * Notes that a run reaches `agent` at `agentPath` and returns its tools (the model's roster:
   * its tools, toolkits' given as `toolkitTools`, handoffs', memory's), each with its approval
   * under the permission policies that cover its calls (the checked agent's and its own).
   */
  reach(agent: CheckedSource, agentPath: string[], via: ChartAgent['via']): ChartTool[] {
    this.reached.push({ agentPath, via, options: agent.options });
    for (const kit of agent.options.toolkits ?? []) {
      this.toolkitsSeen.add(kit.name);
      if (this.options.toolkitTools?.[kit.name]) continue;
      this.opaqueFound.set(pathKey([...agentPath, kit.name]), { agentPath, toolkit: kit.name });
    }
    let tools = this.tools.get(agent);
    if (!tools) {
      const kits: ToolkitTools[] = [];
      for (const kit of agent.options.toolkits ?? []) {
        const given = this.options.toolkitTools?.[kit.name];
        if (given) kits.push({ name: kit.name, tools: given });
      }
      const memory = new Set(this.shared.memoryTools(agent.options.memory).map((t) => t.name));
      const owners = [this.root, agent]
        .filter((a, i, all) => a.options.permissions !== undefined && all.indexOf(a) === i)
        .map((a) => a.name);
      tools = toolRoster(agent.options, kits, this.shared).map((tool) => ({
        tool,
        kind: tool.subAgent
          ? 'sub-agent'
          : tool.handoff
            ? 'handoff'
            : memory.has(tool.name)
              ? 'memory'
              : 'tool',
        approval: toolApproval(tool, owners),
      }));
      this.tools.set(agent, tools);
    }
    return tools;
  }

  /**
   * Checks, once the tree is walked, that `toolkitTools` names only toolkits of its agents.
   * @throws TypeError naming the first other one.
   */
  checkToolkitTools(): void {
    for (const name of Object.keys(this.options.toolkitTools ?? {})) {
      if (this.toolkitsSeen.has(name)) continue;
      const seen = [...this.toolkitsSeen];
      throw new TypeError(
        `checkAgent(): option "toolkitTools" names toolkit "${name}", which no agent reachable from "${this.root.name}" has (${seen.length ? `toolkits: ${seen.join(', ')}` : 'none has a toolkit'})`,
      );
    }
  }

  /** Notes a loop (once per kind and place). */
  loop(loop: AgentLoop): void {
    const key = `${loop.kind}:${pathKey(loop.kind === 'turns' ? loop.agentPath : loop.cycle)}`;
    if (!this.loopsFound.has(key)) this.loopsFound.set(key, loop);
  }

  /**
   * The agents a run started by `start` (under the agents `parentPath`, with the turn limit
   * `turns`) may be handed to, itself first; notes each handoff cycle found on the way.
   */
  handoffClosure(
    start: CheckedSource,
    parentPath: readonly string[],
    turns: LoopBound,
  ): CheckedSource[] {
    const closure: CheckedSource[] = [];
    const visit = (agent: CheckedSource, stack: CheckedSource[]): void => {
      const at = stack.indexOf(agent);
      if (at >= 0) {
        const cycle = [...stack.slice(at), agent].map((a) => a.name);
        this.loop({
          kind: 'handoff-cycle',
          agentPath: [...parentPath, cycle[0]!],
          cycle,
          bound: turns,
        });
        return;
      }
      if (closure.includes(agent)) return;
      closure.push(agent);
      for (const h of agent.options.handoffs ?? []) visit(this.known(h), [...stack, agent]);
    };
    visit(start, []);
    return closure;
  }
}
