import {
  getAdjacencyMap,
  getShortestPaths,
  serializeSnapshot,
  type AdjacencyMap,
} from '@xstate/graph';
import {
  fromTransition,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
} from 'xstate';
import { chartStateOf, type ChartState } from './chart-state.js';

/** One state of the adjacency map, with its transitions. */
interface Vertex {
  state: AnyMachineSnapshot;
  transitions: Record<string, { event: EventObject; state: AnyMachineSnapshot }>;
}

/** A state of the chart: the id of its leaf state node, and what it stands for. */
export interface ChartLeaf {
  readonly id: string;
  readonly state: ChartState;
}

/** A shortest path of the chart to one state: each state left, with the event taken there. */
export interface ChartPath {
  readonly steps: readonly { readonly from: ChartLeaf; readonly event: string }[];
  readonly to: ChartLeaf;
}

/**
 * The specialised chart's graph: its states and transitions found once by `@xstate/graph`
 * (`getAdjacencyMap`, running the machine), then explored as often as needed by
 * `getShortestPaths` over a logic that looks the transitions up instead of running the machine
 * again (the approvals every path to a tool passes take one exploration per approval).
 */
export class ChartGraph {
  private readonly next = new Map<string, Map<string, string>>();
  private readonly leaves = new Map<string, ChartLeaf>();
  private readonly initial: string;

  constructor(machine: AnyStateMachine) {
    const adjacency: AdjacencyMap<AnyMachineSnapshot, EventObject> = getAdjacencyMap<
      AnyMachineSnapshot,
      EventObject,
      unknown
    >(machine, {});
    const entries = Object.entries(adjacency) as [string, Vertex][];
    for (const [key, { state, transitions }] of entries) {
      this.leaves.set(key, chartStateOf(state));
      const out = new Map<string, string>();
      for (const { event, state: target } of Object.values(transitions)) {
        out.set(event.type, serializeSnapshot(target));
      }
      this.next.set(key, out);
    }
    // The map is filled from the start state on: its first key is the start.
    this.initial = Object.keys(adjacency)[0]!;
  }

  /** How many states the chart has. */
  get size(): number {
    return this.leaves.size;
  }

  /** The key of the run's start state (a key names one state of the whole chart). */
  get start(): string {
    return this.initial;
  }

  /** Every state's key. */
  keys(): IterableIterator<string> {
    return this.leaves.keys();
  }

  /** What the state of `key` stands for. */
  leafOf(key: string): ChartLeaf {
    const leaf = this.leaves.get(key);
    if (!leaf) throw new Error(`ChartGraph: no state ${key}`);
    return leaf;
  }

  /** The transitions that leave the state of `key`: the key each event leads to, by event. */
  transitionsFrom(key: string): ReadonlyMap<string, string> {
    return this.next.get(key) ?? new Map<string, string>();
  }

  /**
   * The shortest path to each state of the chart, by leaf id, from the run's start; a path goes
   * on past no state `stop` holds for (such a state is reached, not left).
   */
  shortestPaths(stop?: (leaf: ChartLeaf) => boolean): Map<string, ChartPath> {
    const logic = fromTransition(
      (key: string, event: { type: string }) => this.next.get(key)?.get(event.type) ?? key,
      this.initial,
    );
    const paths = getShortestPaths(logic, {
      serializeState: (snapshot) => snapshot.context,
      events: (snapshot) =>
        [...(this.next.get(snapshot.context)?.keys() ?? [])].map((type) => ({ type })),
      ...(stop ? { stopWhen: (snapshot) => stop(this.leaves.get(snapshot.context)!) } : {}),
    });
    const found = new Map<string, ChartPath>();
    for (const path of paths) {
      // A path's steps are the states it enters, each with the event that entered it (the
      // first one the start, entered by `xstate.init`).
      const keys = path.steps.map((s) => s.state.context);
      const to = this.leaves.get(path.state.context)!;
      found.set(to.id, {
        steps: path.steps
          .slice(1)
          .map((s, i) => ({ from: this.leaves.get(keys[i]!)!, event: s.event.type })),
        to,
      });
    }
    return found;
  }
}
