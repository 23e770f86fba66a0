/**
 * The statecharts' layouts as `scripts/chart-layouts.ts` writes them (into `chart-layouts.ts`,
 * generated at build time from the machine definitions): boxes, edge polylines and labels in
 * SVG user units, top-left origin; and the lines a state's box shows, which the layout sizes
 * and the page draws.
 */

/** A rectangle: its top-left corner and size. */
export interface ChartBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One state of a machine, laid out. */
export interface LaidState extends ChartBox {
  /** Its dotted path from the machine (`approvals.checking`). */
  path: string;
  key: string;
  /** The path of the state holding it, `''` for a top-level state. */
  parent: string;
  type: string;
  /** Its initial child's path (a compound state). */
  initial?: string | undefined;
  /** The actors it invokes (their `src`). */
  invokes: string[];
  /** The actors it spawns as children: it waits for any child's end (`onDone(any child)`). */
  spawns: string[];
  /** Its transitions that stay in it (actions only), as labels. */
  internal: string[];
  /** Eventless routing: the run passes through it and never rests there. */
  passThrough: boolean;
}

/**
 * A point the chart draws without a state: an initial dot, "any state" of a compound, or the
 * box that gathers the many transitions into one state (`group`: one arrow from it).
 */
export interface ChartMarker extends ChartBox {
  /** `<parent>#initial`, `<parent>#any` (`#initial` is the machine's own), or `<target>#from`. */
  id: string;
  kind: 'initial' | 'any' | 'group';
  parent: string;
  /** For `any`: the transitions every state of `parent` has that stay in it. */
  internal: string[];
  /** For `group`: the transitions it gathers, one line each (`modelCall: error`). */
  gathered?: string[] | undefined;
}

/** One transition to one target, laid out. */
export interface LaidEdge {
  /** `e<n>`, in the definition's order. */
  id: string;
  /** A state's path, or a marker's id (`#any`, `approvals#initial`). */
  from: string;
  /** The target state's path (a compound target enters its initial state). */
  to: string;
  /** The event (`CANCEL`, `always`, `onDone(modelStep)`), `''` for an initial marker's. */
  event: string;
  guard?: string | undefined;
  label: string;
  points: [number, number][];
  /** Where the label is drawn (absent for an unlabelled edge). */
  labelBox?: ChartBox | undefined;
  /**
   * Set on a transition drawn as a line of a `group` marker (this marker's id), not as an arrow
   * of its own; the marker's one arrow (`gathers`: their ids) stands for them all.
   */
  groupedIn?: string | undefined;
  /** The ids of the transitions this arrow, from a `group` marker, stands for. */
  gathers?: string[] | undefined;
}

/** One machine's chart. */
export interface ChartLayout {
  machine: string;
  width: number;
  height: number;
  /** Parents before their children. */
  states: LaidState[];
  markers: ChartMarker[];
  edges: LaidEdge[];
}

/** The lines a state's box shows: its name, what it invokes and spawns, what it does in place. */
export function stateLines(state: Pick<LaidState, 'key' | 'invokes' | 'spawns' | 'internal'>) {
  return [
    state.key,
    ...state.invokes.map((s) => `invokes ${s}`),
    ...(state.spawns.length ? [`spawns ${state.spawns.join(', ')}`] : []),
    ...state.internal,
  ];
}

/** The lines an "any state" marker shows, or a `group` marker: the transitions it gathers. */
export function markerLines(
  marker: Pick<ChartMarker, 'parent' | 'internal'> & Partial<Pick<ChartMarker, 'gathered'>>,
) {
  if (marker.gathered) return ['from any of:', ...marker.gathered];
  return [marker.parent ? `any state of ${marker.parent}` : 'any state', ...marker.internal];
}
