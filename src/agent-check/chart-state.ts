/**
 * A state of the specialised run chart: what its leaf stands for (a step of a run of one agent),
 * the events that leave it, and how a witness path reads them.
 */
import type { AnyMachineSnapshot } from 'xstate';
import { linkedAgent, type ChartTool } from './agent-tree.js';

/** The events of the chart: the model's choices, the human's, the steps' ends. */
export const CHART_EVENT = {
  pass: 'guardrails pass',
  trip: 'guardrails trip',
  answer: 'answer',
  noApproval: 'no approval needed',
  needsApproval: 'needs approval',
  denied: 'denied',
  approve: 'approve',
  reject: 'reject',
  starts: 'starts sub-agent',
  returns: 'returns',
} as const;

/** The model's choice of a tool. */
export const callEvent = (tool: string): string => `call ${tool}`;

/** What a leaf state of the chart stands for (its `meta`): a step of a run of one agent. */
export interface ChartState {
  readonly kind:
    | 'input-guardrails'
    | 'model'
    | 'approval-check'
    | 'awaiting-approval'
    | 'execute'
    | 'output-guardrails'
    | 'done';
  /** The run's agent path: the checked agent down to the agent of this step. */
  readonly agentPath: readonly string[];
  /** The tool of a call's states. */
  readonly tool?: ChartTool | undefined;
}

/** The leaf state a snapshot of the chart is at: its id, and what it stands for (its `meta`). */
export function chartStateOf(snapshot: AnyMachineSnapshot): { id: string; state: ChartState } {
  for (const [id, meta] of Object.entries(snapshot.getMeta())) {
    if (meta !== undefined) return { id, state: meta as ChartState };
  }
  throw new Error('checkAgent(): a state of the chart without its meta');
}

/** A chart state in a witness: `billing: execute refund`. */
export function describeState(state: ChartState): string {
  const agent = state.agentPath[state.agentPath.length - 1]!;
  const tool = state.tool?.tool.name ?? '';
  switch (state.kind) {
    case 'input-guardrails':
      return `${agent}: input guardrails`;
    case 'model':
      return `${agent}: model`;
    case 'approval-check':
      return `${agent}: approval check ${tool}`;
    case 'awaiting-approval':
      return `${agent}: awaiting approval ${tool}`;
    case 'execute':
      return `${agent}: execute ${tool}`;
    case 'output-guardrails':
      return `${agent}: output guardrails`;
    case 'done':
      return `${agent}: done`;
  }
}

/**
 * One transition of the chart, as a witness or a run's trajectory names it: the agent whose
 * step took it, the event, and the tool of a call's states (with the agent a sub-agent call
 * starts, and which guardrails a guardrail event is of).
 */
export interface ChartTransition {
  readonly agent: string;
  /** A {@link CHART_EVENT} or `call <tool>`. */
  readonly event: string;
  readonly tool?: string | undefined;
  /** The agent a `starts sub-agent` event starts. */
  readonly starts?: string | undefined;
  /** The guardrails of a `guardrails pass` or `guardrails trip` event. */
  readonly guardrails?: 'input' | 'output' | undefined;
}

/** A transition, in a witness or a trajectory: `billing: approve refund`. */
export function transitionLabel(t: ChartTransition): string {
  const { agent, event } = t;
  const tool = t.tool ?? '';
  switch (event) {
    case CHART_EVENT.pass:
    case CHART_EVENT.trip:
      return `${agent}: ${t.guardrails ?? 'output'} ${event}`;
    case CHART_EVENT.answer:
      return `${agent}: answers`;
    case CHART_EVENT.noApproval:
      return `${agent}: ${tool} needs no approval`;
    case CHART_EVENT.needsApproval:
      return `${agent}: ${tool} awaits approval`;
    case CHART_EVENT.denied:
      return `${agent}: permissions deny ${tool}`;
    case CHART_EVENT.approve:
    case CHART_EVENT.reject:
      return `${agent}: ${event} ${tool}`;
    case CHART_EVENT.starts:
      return `${agent}: ${tool} starts ${t.starts ?? 'its agent'}`;
    case CHART_EVENT.returns:
      return `${agent}: ${tool} returns`;
    default:
      return `${agent}: ${event}`;
  }
}

/** An event taken at `state`, in a witness: `billing: approve refund`. */
export function describeEvent(state: ChartState, type: string): string {
  const linked = state.tool ? linkedAgent(state.tool.tool) : undefined;
  return transitionLabel({
    agent: state.agentPath[state.agentPath.length - 1]!,
    event: type,
    tool: state.tool?.tool.name,
    starts: linked?.name,
    guardrails: state.kind === 'input-guardrails' ? 'input' : 'output',
  });
}
