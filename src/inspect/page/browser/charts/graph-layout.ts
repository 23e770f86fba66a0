/**
 * A machine's chart laid out by dagre: compound states as clusters, transitions as labelled
 * edges, the many transitions into one final state gathered in one box. The session and run
 * machines are laid out at build time (`scripts/chart-layouts.ts` writes `chart-layouts.ts` with
 * this function); an app's hosted machine (a workflow), unknown until the inspector serves it,
 * is laid out here in the page from the graph the server sends.
 *
 * The library is `@dagrejs/dagre` (MIT, a few tens of KB, layered layout of compound graphs with
 * edge labels), chosen over ELK (`elkjs`: EPL-2.0 with a GPL secondary licence, about 1.5 MB of
 * transpiled Java) because it does what these small charts need and its licence matches the
 * package's. It is bundled into the page's script at build time: the page fetches nothing.
 */
import dagre from '@dagrejs/dagre';
import type { ChartGraph } from '../workflow-api-types.js';
import {
  markerLines,
  stateLines,
  type ChartBox,
  type ChartLayout,
  type ChartMarker,
  type LaidEdge,
  type LaidState,
} from './chart-layout.js';

/** Text metrics of the page's chart font (11px system-ui), estimated: no DOM at build time. */
const CHAR_W = 6.4;
const LINE_H = 14;
const PAD = 8;
/** Room at the top of a compound state for its name. */
const TITLE_H = 18;
/** How many transitions into one final state are drawn as one arrow from a box listing them. */
const GROUP_AT = 4;

const textWidth = (lines: readonly string[]) =>
  Math.ceil(Math.max(0, ...lines.map((l) => l.length)) * CHAR_W);

/**
 * An edge's label: its event and guard. The outcome of the actor its state invokes reads `done`
 * or `error` (the state's box names the actor), to keep the chart narrow.
 */
const edgeLabel = (event: string, guard: string | undefined) => {
  const short = event.replace(/^on(Done|Error)\((?!any child).*\)$/, (_m, kind: string) =>
    kind.toLowerCase(),
  );
  if (short === 'always') return guard ? `[${guard}]` : 'always';
  return `${short}${guard ? ` [${guard}]` : ''}`;
};

const round = (n: number) => Math.round(n);

/** A node's or an edge label's place, as dagre writes it: its centre and size. */
interface Placed {
  x: number;
  y: number;
  width: number;
  height: number;
  points?: { x: number; y: number }[];
}

/**
 * The part of dagre's graph this script uses. (dagre's own declarations import their
 * modules without file extensions, which NodeNext resolution does not follow, so they read as
 * `any`; this names what is used instead.)
 */
interface DagreGraph {
  setGraph(label: Record<string, unknown>): void;
  setDefaultEdgeLabel(make: () => object): void;
  setNode(id: string, label: { width: number; height: number }): void;
  setParent(id: string, parent: string): void;
  setEdge(v: string, w: string, label: object, name: string): void;
  node(id: string): Placed;
  edges(): { v: string; w: string; name?: string }[];
  edge(e: { v: string; w: string; name?: string }): Placed;
}

const { graphlib, layout: dagreLayout } = dagre as unknown as {
  graphlib: { Graph: new (options: { compound: boolean; multigraph: boolean }) => DagreGraph };
  layout: (graph: DagreGraph) => void;
};

/** One machine's graph laid out by dagre: compound states as clusters, transitions as labelled edges. */
export function layoutGraph(name: string, graph: ChartGraph): ChartLayout {
  const nodes = graph.states;
  const edges = graph.edges;
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const invoked = new Set(nodes.flatMap((n) => n.invokes.map((i) => i.src)));
  // Actors the machine declares but no state invokes are spawned, by the state that waits for
  // any child's end.
  const spawned = graph.actors.filter((a) => !invoked.has(a));
  const parentOf = (path: string) =>
    path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
  const compounds = new Set(nodes.filter((n) => n.path !== '').map((n) => parentOf(n.path)));
  const isCompound = (path: string) => compounds.has(path);
  /** A compound target is entered at its initial state, down to a leaf. */
  const leafOf = (path: string): string => {
    const node = byPath.get(path);
    return node?.initial !== undefined && isCompound(path) ? leafOf(node.initial) : path;
  };

  const states: LaidState[] = nodes
    .filter((n) => n.path !== '')
    .map((n) => {
      const path = n.path;
      const own = edges.filter((e) => e.from === path);
      const always = own.filter((e) => e.event === 'always');
      return {
        path,
        key: n.key,
        parent: parentOf(path),
        type: n.type,
        initial: n.initial,
        invokes: n.invokes.map((i) => i.src),
        spawns: own.some((e) => e.event === 'onDone(any child)') ? spawned : [],
        internal: own.filter((e) => e.targets.length === 0).map((e) => edgeLabel(e.event, e.guard)),
        passThrough:
          n.invokes.length === 0 &&
          always.length > 0 &&
          always[always.length - 1]!.guard === undefined &&
          own.every((e) => e.event === 'always'),
        x: 0,
        y: 0,
        w: 0,
        h: 0,
      };
    });

  const g = new graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 16, ranksep: 36, edgesep: 8, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of states) {
    const lines = stateLines(s);
    g.setNode(s.path, {
      width: textWidth(lines) + 2 * PAD,
      height: lines.length * LINE_H + PAD + (s.type === 'final' ? 4 : 0),
    });
    if (s.parent) g.setParent(s.path, s.parent);
  }
  // Markers: an initial dot in each compound (and the machine), "any state" where a compound
  // (or the machine) has transitions of its own.
  const markers: ChartMarker[] = [];
  const addMarker = (id: string, kind: ChartMarker['kind'], parent: string, internal: string[]) => {
    const lines = kind === 'any' ? markerLines({ parent, internal }) : [];
    const w = kind === 'initial' ? 12 : textWidth(lines) + 2 * PAD;
    const h = kind === 'initial' ? 12 : lines.length * LINE_H + PAD;
    markers.push({ id, kind, parent, internal, x: 0, y: 0, w, h });
    g.setNode(id, { width: w, height: h });
    if (parent) g.setParent(id, parent);
  };
  const laidEdges: LaidEdge[] = [];
  const addEdge = (from: string, drawnFrom: string, to: string, event: string, guard?: string) => {
    const id = `e${laidEdges.length}`;
    const label = event === '' ? '' : edgeLabel(event, guard);
    laidEdges.push({ id, from, to, event, guard, label, points: [] });
    g.setEdge(
      drawnFrom,
      leafOf(to),
      label
        ? { label, width: textWidth([label]) + 4, height: LINE_H, labelpos: 'c' }
        : { width: 0, height: 0 },
      id,
    );
  };
  for (const n of nodes) {
    if (n.initial === undefined) continue;
    addMarker(`${n.path}#initial`, 'initial', n.path, []);
    addEdge(`${n.path}#initial`, `${n.path}#initial`, n.initial, '');
  }
  // The transitions into a final state that many states reach (a run's `failed`) are one arrow
  // from a box that lists them: drawn one by one they cross the whole chart.
  const finals = new Set(nodes.filter((n) => n.type === 'final').map((n) => n.path));
  const incoming = new Map<string, number>();
  for (const e of edges) for (const t of e.targets) incoming.set(t, (incoming.get(t) ?? 0) + 1);
  const grouped = (to: string) => finals.has(to) && (incoming.get(to) ?? 0) >= GROUP_AT;
  const groups = new Map<string, string[]>(); // target -> ids of the transitions gathered
  for (const e of edges) {
    const fromCompound = e.from === '' || isCompound(e.from);
    if (fromCompound && !markers.some((m) => m.id === `${e.from}#any`)) {
      const own = edges.filter((o) => o.from === e.from && o.targets.length === 0);
      addMarker(
        `${e.from}#any`,
        'any',
        e.from,
        own.map((o) => edgeLabel(o.event, o.guard)),
      );
      if (e.from !== '') states.find((s) => s.path === e.from)!.internal = [];
    }
    for (const target of e.targets) {
      const from = fromCompound ? `${e.from}#any` : e.from;
      if (!grouped(target)) {
        addEdge(from, from, target, e.event, e.guard);
        continue;
      }
      const id = `e${laidEdges.length}`;
      const label = edgeLabel(e.event, e.guard);
      laidEdges.push({ id, from, to: target, event: e.event, guard: e.guard, label, points: [] });
      laidEdges[laidEdges.length - 1]!.groupedIn = `${target}#from`;
      groups.set(target, [...(groups.get(target) ?? []), id]);
    }
  }
  for (const [target, ids] of groups) {
    const members = ids.map((id) => laidEdges.find((l) => l.id === id)!);
    const gathered = members.map(
      (m) => `${m.from.replace(/#any$/, '') || 'any state'}: ${m.label}`,
    );
    const lines = markerLines({ parent: parentOf(target), internal: [], gathered });
    const id = `${target}#from`;
    const w = textWidth(lines) + 2 * PAD;
    const h = lines.length * LINE_H + PAD;
    markers.push({
      id,
      kind: 'group',
      parent: parentOf(target),
      internal: [],
      gathered,
      x: 0,
      y: 0,
      w,
      h,
    });
    g.setNode(id, { width: w, height: h });
    if (parentOf(target)) g.setParent(id, parentOf(target));
    addEdge(id, id, target, '');
    laidEdges[laidEdges.length - 1]!.gathers = ids;
  }
  dagreLayout(g);

  const box = (id: string): ChartBox => {
    const n = g.node(id);
    return {
      x: round(n.x - n.width / 2),
      y: round(n.y - n.height / 2),
      w: round(n.width),
      h: round(n.height),
    };
  };
  for (const s of states) {
    Object.assign(s, box(s.path));
    if (s.type === 'compound' || s.type === 'parallel') {
      s.y -= TITLE_H;
      s.h += TITLE_H;
    }
  }
  for (const m of markers) Object.assign(m, box(m.id));
  for (const e of g.edges()) {
    const label = g.edge(e);
    const laid = laidEdges.find((l) => l.id === e.name)!;
    laid.points = (label.points ?? []).map((p) => [round(p.x), round(p.y)]);
    if (laid.label) {
      laid.labelBox = {
        x: round(label.x - label.width / 2),
        y: round(label.y - label.height / 2),
        w: round(label.width),
        h: round(label.height),
      };
    }
    if (e.v === e.w) selfLoop(laid, box(e.v));
  }
  const all: ChartBox[] = [...states, ...markers, ...laidEdges.flatMap((e) => e.labelBox ?? [])];
  const points = laidEdges.flatMap((e) => e.points);
  const minY = Math.min(0, ...all.map((b) => b.y));
  if (minY < 0) {
    // A compound state's title, added above dagre's box, can pass the top: move all down.
    for (const b of all) b.y -= minY;
    for (const p of points) p[1] -= minY;
  }
  const width = Math.max(...all.map((b) => b.x + b.w), ...points.map((p) => p[0])) + 8;
  const height = Math.max(...all.map((b) => b.y + b.h), ...points.map((p) => p[1])) + 8;
  return { machine: name, width, height, states, markers, edges: laidEdges };
}

/**
 * A transition back to its own state, drawn as a loop on the box's right side with its label
 * beside it (in the room dagre keeps there for the label; dagre's own points of a self-loop
 * fold onto one line).
 */
function selfLoop(edge: LaidEdge, state: ChartBox): void {
  const right = state.x + state.w;
  const mid = round(state.y + state.h / 2);
  edge.points = [
    [right, mid - 10],
    [right + 18, mid - 16],
    [right + 18, mid + 16],
    [right, mid + 10],
  ];
  if (edge.labelBox) edge.labelBox = { ...edge.labelBox, x: right + 22, y: mid - 7 };
}
