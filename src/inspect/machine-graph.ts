import type { AnyStateMachine } from 'xstate';

/** What the charts read of an XState transition definition. */
export interface TransitionLike {
  eventType: string;
  target?: readonly { id: string }[] | undefined;
  guard?: unknown;
  reenter?: boolean;
}

/** What the charts read of an XState state node. */
export interface NodeLike {
  id: string;
  key: string;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  description?: string | undefined;
  states: Record<string, NodeLike>;
  invoke: { id: string; src: unknown }[];
  transitions: Map<string, TransitionLike[]>;
  always?: TransitionLike[] | undefined;
  initial?: { target: readonly { id: string }[] } | undefined;
}

/** One transition, as drawn: from a state path to target paths ('' is the machine itself). */
export interface Edge {
  from: string;
  event: string;
  guard: string | undefined;
  targets: string[];
}

/** One state of a machine's graph, as plain JSON (the machine itself is the state `''`). */
export interface GraphState {
  /** Its dotted path from the machine (`approvals.checking`), `''` for the machine. */
  path: string;
  key: string;
  type: NodeLike['type'];
  /** Its initial child's path (a compound state). */
  initial?: string | undefined;
  /** The actors it invokes: each invocation's id (the child's id in a snapshot) and `src`. */
  invokes: { id: string; src: string }[];
}

/**
 * A machine's states and transitions as plain JSON: what the inspector's page lays out and draws
 * (`layoutGraph`), for the session and run machines at build time and for an app's hosted
 * machine (a workflow) when it is asked for.
 */
export interface MachineGraph {
  /** Parents before their children, the machine first. */
  states: GraphState[];
  /** In the definition's order. */
  edges: Edge[];
  /** The actors the machine declares (`setup({ actors })`), invoked or spawned. */
  actors: string[];
}

/** The name a guard is drawn with: its name in `setup({ guards })`, or `inline`. */
function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) {
    return String(guard.type);
  }
  return 'inline';
}

/**
 * `xstate.done.actor.<invoked id>` reads `onDone(<src>)`; a wildcard, `onDone(any child)`; a
 * delayed transition `xstate.after.<delay>.<state id>`, `after(<delay>)`.
 */
function eventName(type: string, node: NodeLike): string {
  for (const kind of ['done', 'error'] as const) {
    const prefix = `xstate.${kind}.actor.`;
    if (!type.startsWith(prefix)) continue;
    const id = type.slice(prefix.length);
    const name = kind === 'done' ? 'onDone' : 'onError';
    if (id === '*') return `${name}(any child)`;
    const invoked = node.invoke.find((i) => i.id === id);
    return `${name}(${invoked && typeof invoked.src === 'string' ? invoked.src : id})`;
  }
  const after = /^xstate\.after\.([^.]+)\./.exec(type);
  if (after) return `after(${after[1]})`;
  return type;
}

/**
 * A machine's state nodes (parents first) and transitions, in the definition's order, with
 * `pathOf` (a node's id as its dotted path, `''` for the machine). The docs' charts
 * (`scripts/machine-charts.ts`) and the inspector's (`machineGraph`) read the same walk.
 */
export function walk(machine: AnyStateMachine) {
  const root = machine.root as unknown as NodeLike;
  const pathOf = (id: string) => (id === root.id ? '' : id.slice(root.id.length + 1));
  const edges: Edge[] = [];
  const nodes: NodeLike[] = [];
  const visit = (node: NodeLike) => {
    nodes.push(node);
    const from = pathOf(node.id);
    for (const [type, list] of node.transitions) {
      for (const t of list) {
        edges.push({
          from,
          event: eventName(type, node),
          guard: guardName(t.guard),
          targets: (t.target ?? []).map((s) => pathOf(s.id)),
        });
      }
    }
    for (const t of node.always ?? []) {
      edges.push({
        from,
        event: 'always',
        guard: guardName(t.guard),
        targets: (t.target ?? []).map((s) => pathOf(s.id)),
      });
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(root);
  return { root, nodes, edges, pathOf };
}

/** A machine's graph as plain JSON, from its own state nodes (see `MachineGraph`). */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const { nodes, edges, pathOf } = walk(machine);
  const actors = (machine as unknown as { implementations?: { actors?: object } }).implementations
    ?.actors;
  return {
    states: nodes.map((n) => ({
      path: pathOf(n.id),
      key: n.key,
      type: n.type,
      ...(n.initial?.target[0] ? { initial: pathOf(n.initial.target[0].id) } : {}),
      invokes: n.invoke.map((i) => ({
        id: i.id,
        src: typeof i.src === 'string' ? i.src : 'actor',
      })),
    })),
    edges,
    actors: Object.keys(actors ?? {}),
  };
}
