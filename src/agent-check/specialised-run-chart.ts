import { createMachine, type AnyStateMachine } from 'xstate';
import type { AgentLoop, LoopBound, OpaqueSource } from './agent-certificate.js';
import {
  AgentTree,
  linkedAgent,
  type ChartAgent,
  type ChartTool,
  type CheckedSource,
  type SpecialiseOptions,
} from './agent-tree.js';
import { CHART_EVENT as EVENT, callEvent, type ChartState } from './chart-state.js';

/** The run chart specialised to an agent tree, and what its building found. */
export interface SpecialisedRunChart {
  /** A pure machine (no actors): the model's and the human's choices are its events. */
  readonly machine: AnyStateMachine;
  readonly agents: readonly ChartAgent[];
  readonly loops: readonly AgentLoop[];
  readonly opaque: readonly OpaqueSource[];
  /** How deep sub-agent runs were followed. */
  readonly maxSubAgentDepth: number;
}

/** A state node's config, as this file writes them. */
interface NodeConfig {
  id?: string;
  initial?: string;
  type?: 'final';
  meta?: ChartState;
  states?: Record<string, NodeConfig>;
  on?: Record<string, string>;
  onDone?: string;
}

/** Where an agent's states sit in a run. */
interface AgentPlace {
  depth: number;
  /** Whether the agent starts the run (its input guardrails run first). */
  first: boolean;
  modelId: string;
  /** The id of the run's final state. */
  answered: string;
  /** The id of the model state of an agent the run may be handed to. */
  handoffTarget(agent: CheckedSource): string;
}

/** A state key: XState reads `.` as a path and `#` as an id. */
const keyOf = (name: string): string => name.replace(/[.#]/g, '_');

/**
 * Builds the run chart (src/machines/run-machine.ts) specialised to `root`: per run (the
 * checked agent's, each sub-agent run down to the depth limit) the states of the run machine
 * that decide what runs (input guardrails, model step, approval check, awaiting approval, tool
 * call, sub-agent run, handoff, output guardrails, done) for each agent the run may be handed
 * to, with the model's choices (call a tool, answer) and the human's (approve, reject) as
 * events. A call is one at a time: the calls of one turn run in any order.
 * @throws TypeError when two different agents of the tree share a name, or an agent has two
 *   tools of one name.
 */
export function specialisedRunChart(
  root: CheckedSource,
  options: SpecialiseOptions = {},
): SpecialisedRunChart {
  const tree = new AgentTree(root, options);
  let ids = 0;
  const newId = (): string => `s${ids++}`;

  /** The states of one run: started by `start` under the agents `parentPath`, `depth` deep. */
  const runStates = (
    start: CheckedSource,
    parentPath: readonly string[],
    depth: number,
    turns: LoopBound,
  ): NodeConfig => {
    const answered = newId();
    const closure = tree.handoffClosure(start, parentPath, turns);
    tree.loop({
      kind: 'turns',
      agentPath: [...parentPath, start.name],
      cycle: [start.name],
      bound: turns,
    });
    const modelIds = new Map(closure.map((a) => [a, newId()]));
    const states: Record<string, NodeConfig> = {};
    closure.forEach((agent, i) => {
      const agentPath = [...parentPath, agent.name];
      const via = i > 0 ? 'handoff' : depth === 0 ? 'root' : 'sub-agent';
      states[`${i}:${keyOf(agent.name)}`] = agentStates(
        tree.reach(agent, agentPath, via),
        agent,
        agentPath,
        {
          depth,
          first: i === 0,
          modelId: modelIds.get(agent)!,
          answered,
          handoffTarget: (target) => modelIds.get(tree.known(target))!,
        },
      );
    });
    states['answered'] = { id: answered, type: 'final' };
    return { initial: `0:${keyOf(start.name)}`, states };
  };

  /** The states of one agent in a run: its model step and each of its tools' calls. */
  const agentStates = (
    tools: readonly ChartTool[],
    agent: CheckedSource,
    agentPath: string[],
    place: AgentPlace,
  ): NodeConfig => {
    const leaf = (kind: ChartState['kind'], tool?: ChartTool): Pick<NodeConfig, 'id' | 'meta'> => ({
      id: newId(),
      meta: { kind, agentPath, ...(tool ? { tool } : {}) },
    });
    const states: Record<string, NodeConfig> = {};
    const guarded = (agent.options.outputGuardrails ?? []).length > 0;
    const on: Record<string, string> = {
      [EVENT.answer]: guarded ? 'output guardrails' : `#${place.answered}`,
    };
    if (place.first && (agent.options.inputGuardrails ?? []).length > 0) {
      states['input guardrails'] = {
        ...leaf('input-guardrails'),
        on: { [EVENT.pass]: 'model', [EVENT.trip]: `#${place.answered}` },
      };
    }
    states['model'] = { ...leaf('model'), id: place.modelId, on };
    if (guarded) {
      states['output guardrails'] = {
        ...leaf('output-guardrails'),
        on: { [EVENT.pass]: `#${place.answered}`, [EVENT.trip]: `#${place.answered}` },
      };
    }
    for (const tool of tools) {
      const name = tool.tool.name;
      const execute = `execute ${name}`;
      const { approval, askedBy } = tool.approval;
      if (approval === 'never') on[callEvent(name)] = execute;
      else {
        on[callEvent(name)] = `check ${name}`;
        const check: Record<string, string> = { [EVENT.needsApproval]: `awaiting ${name}` };
        if (approval === 'conditional') check[EVENT.noApproval] = execute;
        if (askedBy.some((a) => a.startsWith('permissions'))) check[EVENT.denied] = 'model';
        states[`check ${name}`] = { ...leaf('approval-check', tool), on: check };
        states[`awaiting ${name}`] = {
          ...leaf('awaiting-approval', tool),
          on: { [EVENT.approve]: execute, [EVENT.reject]: 'model' },
        };
      }
      states[execute] = executeState(tool, agentPath, place, leaf('execute', tool));
    }
    return { initial: states['input guardrails'] ? 'input guardrails' : 'model', states };
  };

  /** A tool call: a step that returns, a sub-agent run, or a handoff. */
  const executeState = (
    { tool }: ChartTool,
    agentPath: string[],
    place: AgentPlace,
    self: Pick<NodeConfig, 'id' | 'meta'>,
  ): NodeConfig => {
    const target = linkedAgent(tool);
    if (tool.handoff && target) {
      return { ...self, on: { [EVENT.returns]: `#${place.handoffTarget(target)}` } };
    }
    if (!tool.subAgent || !target || place.depth + 1 > tree.maxSubAgentDepth) {
      // A sub-agent run deeper than the limit fails at its first step: the call returns an error.
      return { ...self, on: { [EVENT.returns]: 'model' } };
    }
    const child = tree.known(target);
    const at = agentPath.indexOf(child.name);
    if (at >= 0) {
      tree.loop({
        kind: 'sub-agent-recursion',
        agentPath: agentPath.slice(0, at + 1),
        cycle: [...agentPath.slice(at), child.name],
        bound: tree.depthBound,
      });
    }
    const turns: LoopBound = {
      option: 'maxTurns',
      value: tool.subAgent.maxTurns,
      isDefault: child.options.maxTurns === undefined,
    };
    return {
      initial: 'call',
      states: {
        call: { ...self, on: { [EVENT.starts]: 'run' } },
        run: {
          ...runStates(child, agentPath, place.depth + 1, turns),
          onDone: `#${place.modelId}`,
        },
      },
    };
  };

  const rootTurns: LoopBound = {
    option: 'maxTurns',
    value: root.options.maxTurns ?? 10,
    isDefault: root.options.maxTurns === undefined,
  };
  const run = runStates(root, [], 0, rootTurns);
  tree.checkToolkitTools();
  const doneId = newId();
  const machine = createMachine({
    id: 'agent-check',
    initial: 'run',
    states: {
      run: { ...run, onDone: `#${doneId}` },
      done: { id: doneId, type: 'final', meta: { kind: 'done', agentPath: [root.name] } },
    },
  });
  return {
    machine,
    agents: tree.agents,
    loops: tree.loops,
    opaque: tree.opaque,
    maxSubAgentDepth: tree.maxSubAgentDepth,
  };
}
