import { onInterruptedOf } from '../tools/in-doubt.js';
import type { OnInterrupted } from '../tools/in-doubt.js';
import { isObject, optionNames, OptionChecker } from '../validation/option-checks.js';
import {
  CERTIFICATE_VERSION,
  type AgentCertificate,
  type InDoubtRisk,
  type ReachableTool,
} from './agent-certificate.js';
import type { Agent } from '../agent/agent.js';
import type { CheckedSource, SpecialiseOptions } from './agent-tree.js';
import { ChartGraph, type ChartPath } from './chart-graph.js';
import { describeEvent, describeState, type ChartState } from './chart-state.js';
import { specialisedRunChart } from './specialised-run-chart.js';

/** Options of `checkAgent`. */
export type CheckAgentOptions = SpecialiseOptions;

const CHECK_OPTION_NAMES = optionNames<CheckAgentOptions>({ maxDepth: true, toolkitTools: true });

/** A path as the certificate shows it: each choice with the agent that made it, then where it ends. */
function witnessOf(path: ChartPath): string[] {
  return [
    ...path.steps.map((s) => describeEvent(s.from.state, s.event)),
    describeState(path.to.state),
  ];
}

const gateName = (state: ChartState): string =>
  `${state.agentPath.join(' > ')}: ${state.tool!.tool.name}`;

/** Compares by code unit, the same on every machine (`localeCompare` follows the locale). */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const byPath = (a: { agentPath: string[] }, b: { agentPath: string[] }): number =>
  compareText(a.agentPath.join('\u0000'), b.agentPath.join('\u0000'));

/** What a call in doubt of a tool with this policy leads to. */
const IN_DOUBT_MEANING: Record<OnInterrupted, string> = {
  fail: 'the model reads that its outcome is unknown (the effect may have happened)',
  ask: 'the run pauses until an operator runs it again, records its result or fails it',
  retry:
    'it runs again with the same call id: the effect happens twice unless the tool reads it as an idempotency key',
};

/**
 * Checks an agent and the options of the chart specialised to it, for `call` (`checkAgent()`,
 * `datasetCoverage()`).
 * @throws TypeError naming the call and the bad argument or option.
 */
export function checkChartArguments(call: string, agent: unknown, options: unknown): void {
  const a = agent as Partial<CheckedSource> | null;
  if (!isObject(a) || typeof a.name !== 'string' || !isObject(a.options)) {
    throw new TypeError(`${call}: agent must be an Agent (new Agent({ ... }))`);
  }
  new OptionChecker(call, options, CHECK_OPTION_NAMES)
    .positiveInteger('maxDepth')
    .check(
      'toolkitTools',
      'an object of arrays of tools, by toolkit name',
      (v) =>
        isObject(v) &&
        Object.values(v).every(
          (tools) =>
            Array.isArray(tools) &&
            tools.every((t) => isObject(t) && typeof t['name'] === 'string'),
        ),
    );
}

/**
 * The certificate of what `agent` can reach: every tool its runs and its sub-agents' runs can
 * call (handoffs followed), through which approvals, with the shortest path of its run chart
 * to each call; the tools whose calls a crash leaves in doubt; the loops and their bounds; the
 * toolkits whose tools are known only once connected (pass them as `toolkitTools`). Static:
 * nothing runs, no model is called, no toolkit is created.
 * @throws TypeError for an `agent` that is not one, bad options, two agents of one name.
 */
export function checkAgent(
  agent: Agent<unknown>,
  options: CheckAgentOptions = {},
): AgentCertificate {
  checkChartArguments('checkAgent()', agent, options);
  const chart = specialisedRunChart(agent, options);
  const graph = new ChartGraph(chart.machine);
  const all = graph.shortestPaths();
  const free = graph.shortestPaths((leaf) => leaf.state.kind === 'awaiting-approval');
  const without = new Map<string, Map<string, ChartPath>>();
  const reachableWithout = (gate: string, target: string): boolean => {
    let paths = without.get(gate);
    if (!paths) {
      paths = graph.shortestPaths((leaf) => leaf.id === gate);
      without.set(gate, paths);
    }
    return paths.has(target);
  };
  const tools: ReachableTool[] = [];
  const inDoubt: InDoubtRisk[] = [];
  for (const [id, path] of all) {
    const { state } = path.to;
    if (state.kind !== 'execute' || !state.tool) continue;
    const { tool: t, kind, approval } = state.tool;
    const agentPath = [...state.agentPath];
    const freePath = free.get(id);
    const gates = freePath
      ? []
      : path.steps
          .map((s) => s.from)
          .filter((s) => s.state.kind === 'awaiting-approval' && !reachableWithout(s.id, id))
          .map((s) => gateName(s.state));
    const onInterrupted = onInterruptedOf(t);
    const idempotent = t.idempotent === true;
    const reconcile = t.reconcile !== undefined;
    tools.push({
      agentPath,
      tool: t.name,
      kind,
      approval: approval.approval,
      askedBy: approval.askedBy,
      ...(approval.condition === undefined ? {} : { condition: approval.condition }),
      gates: [...new Set(gates)],
      withoutApproval: freePath !== undefined,
      witness: witnessOf(freePath ?? path),
      idempotent,
      onInterrupted,
      reconcile,
    });
    if ((kind === 'tool' || kind === 'memory') && !idempotent && !reconcile) {
      inDoubt.push({
        agentPath,
        tool: t.name,
        onInterrupted,
        meaning: IN_DOUBT_MEANING[onInterrupted],
      });
    }
  }
  const byTool = <T extends { agentPath: string[]; tool: string }>(a: T, b: T): number =>
    byPath(a, b) || compareText(a.tool, b.tool);
  return {
    version: CERTIFICATE_VERSION,
    agent: agent.name,
    maxSubAgentDepth: chart.maxSubAgentDepth,
    agents: chart.agents
      .map((a) => ({
        agentPath: a.agentPath,
        via: a.via,
        inputGuardrails: (a.options.inputGuardrails ?? []).map((g) => g.name),
        outputGuardrails: (a.options.outputGuardrails ?? []).map((g) => g.name),
        permissions: a.options.permissions !== undefined,
      }))
      .sort(byPath),
    tools: tools.sort(byTool),
    risks: {
      inDoubt: inDoubt.sort(byTool),
      loops: [...chart.loops].sort(
        (a, b) =>
          compareText(a.kind, b.kind) ||
          byPath(a, b) ||
          compareText(a.cycle.join(), b.cycle.join()),
      ),
      opaque: [...chart.opaque].sort((a, b) => byPath(a, b) || compareText(a.toolkit, b.toolkit)),
    },
  };
}
