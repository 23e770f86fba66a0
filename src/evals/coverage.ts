import type { Agent } from '../agent/agent.js';
import type { SpecialiseOptions } from '../agent-check/agent-tree.js';
import { checkChartArguments } from '../agent-check/check-agent.js';
import { ChartGraph } from '../agent-check/chart-graph.js';
import {
  CHART_EVENT,
  callEvent,
  describeEvent,
  describeState,
  type ChartState,
} from '../agent-check/chart-state.js';
import { specialisedRunChart } from '../agent-check/specialised-run-chart.js';
import type { EvalRow } from './eval-row.js';

/** Options of `datasetCoverage`: those of the chart (as `checkAgent` takes them). */
export type DatasetCoverageOptions = SpecialiseOptions;

/** A transition of the run chart: the agents down to the one that takes it, and its name. */
export interface CoverageTransition {
  agentPath: string[];
  /** As the agent check and `trajectoryOf` name it: `billing: reject refund`. */
  transition: string;
}

/** A row whose recorded trajectory left the chart: where, and with which transition. */
export interface OffChartRow {
  rowId: string;
  /** The transition the chart has no way to take from where the row was. */
  transition: string;
  /** Where the row was: `billing: awaiting approval refund`. */
  at: string;
}

/**
 * What a dataset exercises of an agent's run chart: the reachable transitions it takes (each
 * run row's recorded trajectory walked over the chart; a step row's model choice, at each
 * place its agent's model runs), the tools never called, the approval paths (approve, reject)
 * never taken, and the rows whose trajectory the chart cannot follow.
 */
export interface DatasetCoverage {
  agent: string;
  rows: number;
  transitions: { reachable: number; covered: number; uncovered: CoverageTransition[] };
  tools: { reachable: number; neverCalled: { agentPath: string[]; tool: string }[] };
  approvals: {
    /** Approve and reject of each tool call that can wait for a human. */
    reachable: number;
    neverTaken: { agentPath: string[]; tool: string; decision: 'approve' | 'reject' }[];
  };
  /** Rows walked no further than a transition the chart does not have there. */
  offChart: OffChartRow[];
}

/** One edge of the chart, with its name. */
interface Edge {
  readonly id: string;
  readonly from: ChartState;
  readonly event: string;
  readonly to: string;
  readonly name: string;
}

/** The chart's edges, by the state they leave and their name. */
function edgesOf(graph: ChartGraph): Map<string, Map<string, Edge>> {
  const edges = new Map<string, Map<string, Edge>>();
  for (const key of graph.keys()) {
    const from = graph.leafOf(key).state;
    const out = new Map<string, Edge>();
    for (const [event, to] of graph.transitionsFrom(key)) {
      // XState's own done events are how the graph saw a run end, not a step of it.
      if (event.startsWith('xstate.')) continue;
      const name = describeEvent(from, event);
      out.set(name, { id: `${key}\u0000${event}`, from, event, to, name });
    }
    edges.set(key, out);
  }
  return edges;
}

const isGuardrails = (state: ChartState): boolean =>
  state.kind === 'input-guardrails' || state.kind === 'output-guardrails';

/**
 * The chart coverage of a dataset (its rows, or the dataset itself) over `agent`'s run chart,
 * the one the agent check builds (`checkAgent`): every reachable transition, and those the
 * rows' recorded trajectories take. Guardrail steps are not in a trajectory: a walk that meets
 * guardrails passes them. Static: nothing runs.
 * @throws TypeError for an `agent` that is not one, bad options, two agents of one name.
 */
export function datasetCoverage(
  agent: Agent<unknown>,
  dataset: readonly EvalRow[] | { readonly rows: readonly EvalRow[] },
  options: DatasetCoverageOptions = {},
): DatasetCoverage {
  checkChartArguments('datasetCoverage()', agent, options);
  const rows: unknown = Array.isArray(dataset)
    ? dataset
    : (dataset as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) {
    throw new TypeError('datasetCoverage(): dataset must be rows or a dataset');
  }
  const graph = new ChartGraph(specialisedRunChart(agent, options).machine);
  const edges = edgesOf(graph);
  const covered = new Set<string>();
  const offChart: OffChartRow[] = [];

  /** Where the walk is once the guardrails at `at` passed. */
  const passGuardrails = (at: string): string => {
    while (isGuardrails(graph.leafOf(at).state)) {
      const pass = [...edges.get(at)!.values()].find((e) => e.event === CHART_EVENT.pass)!;
      covered.add(pass.id);
      at = pass.to;
    }
    return at;
  };
  const walk = (row: EvalRow): void => {
    let at = graph.start;
    for (const transition of row.recorded.trajectory) {
      let edge = edges.get(at)!.get(transition);
      if (!edge && isGuardrails(graph.leafOf(at).state)) {
        at = passGuardrails(at);
        edge = edges.get(at)!.get(transition);
      }
      if (!edge) {
        offChart.push({ rowId: row.id, transition, at: describeState(graph.leafOf(at).state) });
        return;
      }
      covered.add(edge.id);
      at = edge.to;
    }
    // A run that completed passed its output guardrails.
    if (row.recorded.status === 'completed') passGuardrails(at);
  };
  /** A step row: its model choices, wherever its agent's model runs. */
  const step = (row: EvalRow): void => {
    for (const transition of row.recorded.trajectory) {
      for (const [key, out] of edges) {
        const from = graph.leafOf(key).state;
        if (from.kind !== 'model' || from.agentPath.at(-1) !== row.agent) continue;
        const edge = out.get(transition);
        if (edge) covered.add(edge.id);
      }
    }
  };
  for (const row of rows as EvalRow[]) (row.kind === 'run' ? walk : step)(row);

  const all = [...edges.values()].flatMap((out) => [...out.values()]);
  const uncovered = all.filter((e) => !covered.has(e.id));
  const tools = all.filter((e) => e.from.kind === 'model' && e.event.startsWith(callEvent('')));
  const decisions = all.filter((e) => e.from.kind === 'awaiting-approval');
  return {
    agent: agent.name,
    rows: rows.length,
    transitions: {
      reachable: all.length,
      covered: all.length - uncovered.length,
      uncovered: uncovered.map((e) => ({ agentPath: [...e.from.agentPath], transition: e.name })),
    },
    tools: {
      reachable: tools.length,
      neverCalled: tools
        .filter((e) => !covered.has(e.id))
        .map((e) => ({
          agentPath: [...e.from.agentPath],
          tool: e.event.slice(callEvent('').length),
        })),
    },
    approvals: {
      reachable: decisions.length,
      neverTaken: decisions
        .filter((e) => !covered.has(e.id))
        .map((e) => ({
          agentPath: [...e.from.agentPath],
          tool: e.from.tool!.tool.name,
          decision: e.event === CHART_EVENT.approve ? ('approve' as const) : ('reject' as const),
        })),
    },
    offChart,
  };
}
