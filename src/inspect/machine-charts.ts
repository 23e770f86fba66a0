import type { AnyStateMachine } from 'xstate';
import { runMachine } from '../machines/run-machine.js';
import { sessionMachine } from '../machines/session-machine.js';

/** One state of a chart: its name, kind, nested states, transitions and invoked actors. */
export interface ChartState {
  /** The state's dotted path from the root, e.g. `approvals.checking` (`''` for the root). */
  path: string;
  key: string;
  type: string;
  /** Event name (or `always`, `done`, `error`) and the paths of its targets. */
  transitions: { event: string; targets: string[] }[];
  /** Names (`src`) of the actors the state invokes. */
  invokes: string[];
  states: ChartState[];
}

/** What the chart reads of a state node (XState's `StateNode`). */
interface NodeLike {
  id: string;
  key: string;
  type: string;
  states: Record<string, NodeLike>;
  invoke: { src: unknown }[];
  transitions: Map<string, { target?: readonly { id: string }[] | undefined }[]>;
  always?: { target?: readonly { id: string }[] | undefined }[] | undefined;
}

/**
 * The session and run machines as plain JSON for drawing: each state with its nested states,
 * laid out from the machines' own state nodes, so a renamed or
 * added state shows without touching the page.
 */
export function machineCharts(): { session: ChartState; run: ChartState } {
  return { session: chartOf(sessionMachine()), run: chartOf(runMachine()) };
}

function chartOf(machine: AnyStateMachine): ChartState {
  const root = machine.root as unknown as NodeLike;
  const rootId = root.id;
  const pathOf = (id: string) => (id === rootId ? '' : id.slice(rootId.length + 1));
  const walk = (node: NodeLike): ChartState => {
    const transitions = [...node.transitions.entries()].flatMap(([type, list]) =>
      list.map((t) => ({
        event: eventName(type),
        targets: (t.target ?? []).map((s) => pathOf(s.id)),
      })),
    );
    for (const t of node.always ?? []) {
      transitions.push({ event: 'always', targets: (t.target ?? []).map((s) => pathOf(s.id)) });
    }
    return {
      path: pathOf(node.id),
      key: node.key,
      type: node.type,
      transitions: transitions.filter((t) => t.targets.length > 0),
      invokes: node.invoke.map((i) => (typeof i.src === 'string' ? i.src : 'actor')),
      states: Object.values(node.states).map(walk),
    };
  };
  return walk(root);
}

/** `xstate.done.actor.0.run.modelCall` reads `done`; `xstate.error.actor.*` reads `error`. */
function eventName(type: string): string {
  if (type.startsWith('xstate.done.actor')) return 'done';
  if (type.startsWith('xstate.error.actor')) return 'error';
  return type;
}
