import type { TimelineStep } from '../api-types.js';
import type { ChartLayout, LaidEdge, LaidState } from './chart-layout.js';

/**
 * The actor of each journaled step kind (the journal's `kind`, set by the step actors of
 * `src/actors/`): a step ran in the state that invokes or spawns its actor.
 */
const STEP_ACTORS: Record<string, string> = {
  model: 'modelStep',
  tool: 'toolCall',
  approval: 'approvalCheck',
  guardrail: 'guardrailCheck',
};

/** What a run did in one state: how often it entered it, its time there, the steps it ran there. */
export interface StateVisit {
  entered: number;
  /** Milliseconds, over the visits whose start and end the journal has. */
  ms: number;
  steps: TimelineStep[];
}

/** The path a run took through its machine, as far as its journal and its state tell. */
export interface RunPath {
  /** Per state path (compound states too). */
  visits: Map<string, StateVisit>;
  /** Ids of the edges it took. */
  edges: Set<string>;
  /** The current state and its ancestors. */
  current: Set<string>;
}

/** The current state (`approvals.checking`, or `a.b,c` for parallel ones) with its ancestors. */
export function activePaths(state: string | null | undefined): Set<string> {
  const out = new Set<string>();
  for (const full of String(state || '').split(',')) {
    if (!full) continue;
    const parts = full.split('.');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
  }
  return out;
}

/** A stop on the run's way: the states it may be, the steps it ran there and its time there. */
interface Stop {
  candidates: string[];
  steps: TimelineStep[];
  ms: number | undefined;
}

/**
 * The run's path through `layout`, inferred: the journal says which states ran steps (each step
 * kind's actor is invoked or spawned by one state; consecutive tool steps are one stay in it),
 * an approval check that asked a human is followed by the resting state that is neither a
 * step's nor final (the wait), and the run ends in `state`. Between two stops it takes the
 * shortest way through pass-through (eventless routing) states. Found from the layout's own
 * edges, so it follows the machine's definition as it is.
 */
export function runPath(
  layout: ChartLayout,
  steps: readonly TimelineStep[],
  state: string,
): RunPath {
  const byPath = new Map(layout.states.map((s) => [s.path, s]));
  const stepStates = (kind: string) =>
    layout.states
      .filter(
        (s) =>
          s.invokes.includes(STEP_ACTORS[kind] ?? '') || s.spawns.includes(STEP_ACTORS[kind] ?? ''),
      )
      .map((s) => s.path);
  const allStepStates = new Set(Object.keys(STEP_ACTORS).flatMap(stepStates));
  const waits = layout.states
    .filter((s) => !s.passThrough && s.type === 'atomic' && !allStepStates.has(s.path))
    .map((s) => s.path);

  const stops: Stop[] = [];
  const sorted = [...steps].sort((a, b) => a.step - b.step);
  for (const [i, step] of sorted.entries()) {
    const last = stops[stops.length - 1];
    if (step.kind === 'tool' && last?.steps.length && last.steps.every((s) => s.kind === 'tool')) {
      last.steps.push(step);
      last.ms = span(last.steps);
      continue;
    }
    stops.push({ candidates: stepStates(step.kind), steps: [step], ms: span([step]) });
    if (step.approvals?.some((a) => a.needsApproval)) {
      const next = sorted[i + 1];
      const waited =
        next?.startedAt !== undefined && step.endedAt !== undefined
          ? next.startedAt - step.endedAt
          : undefined;
      stops.push({ candidates: waits, steps: [], ms: waited });
    }
  }
  const now = [...activePaths(state)].filter((p) => byPath.get(p)?.type !== 'compound').pop();
  if (now) stops.push({ candidates: [now], steps: [], ms: undefined });

  const visits = new Map<string, StateVisit>();
  const edges = new Set<string>();
  const visit = (path: string, stop?: Stop) => {
    const v = visits.get(path) ?? { entered: 0, ms: 0, steps: [] };
    v.entered += 1;
    if (stop) {
      v.ms += stop.ms ?? 0;
      v.steps.push(...stop.steps);
    }
    visits.set(path, v);
  };
  const enter = (from: string | undefined, to: string) => {
    // Entering a state enters the ancestors that `from` is not in.
    const fromUp = activePaths(from);
    for (const p of activePaths(to)) if (p !== to && !fromUp.has(p)) visit(p);
  };

  const initial = layout.edges.find((e) => e.from === '#initial');
  let at: string | undefined;
  if (initial) {
    at = leafOf(byPath, initial.to);
    edges.add(initial.id);
    enter(undefined, at);
    visit(at, stops[0]?.candidates.includes(at) ? stops.shift() : undefined);
  }
  for (const stop of stops) {
    if (at !== undefined && stop.candidates.includes(at) && stop.steps.length === 0) {
      // Still there (the run stands where its last step ran).
      continue;
    }
    const way = at === undefined ? undefined : shortestWay(layout, byPath, at, stop.candidates);
    if (way) {
      for (const hop of way) {
        edges.add(hop.edge.id);
        enter(at, hop.to);
        at = hop.to;
        if (hop !== way[way.length - 1]) visit(hop.to);
      }
      visit(at!, stop);
    } else if (stop.candidates[0] !== undefined) {
      // No way found through routing states (a stop the journal does not show came between).
      enter(at, stop.candidates[0]);
      at = stop.candidates[0];
      visit(at, stop);
    }
  }
  return { visits, edges, current: activePaths(state) };
}

/** A compound state is entered at its initial state, down to a leaf. */
function leafOf(byPath: Map<string, LaidState>, path: string): string {
  const s = byPath.get(path);
  return s?.initial ? leafOf(byPath, s.initial) : path;
}

/** Milliseconds from the first start to the last end of some steps (they may overlap). */
function span(steps: readonly TimelineStep[]): number | undefined {
  const starts = steps.flatMap((s) => (s.startedAt === undefined ? [] : [s.startedAt]));
  const ends = steps.flatMap((s) => (s.endedAt === undefined ? [] : [s.endedAt]));
  if (!starts.length || !ends.length) return undefined;
  return Math.max(...ends) - Math.min(...starts);
}

/**
 * The fewest transitions from `from` to one of `targets` that pass through pass-through states
 * only (a transition of an ancestor, "any state", counts from every state inside it).
 */
function shortestWay(
  layout: ChartLayout,
  byPath: Map<string, LaidState>,
  from: string,
  targets: readonly string[],
): { edge: LaidEdge; to: string }[] | undefined {
  const goal = new Set(targets);
  const outOf = (path: string) => {
    const scopes = activePaths(path);
    return layout.edges.filter(
      (e) =>
        e.from === path ||
        (e.from.endsWith('#any') && (e.from === '#any' || scopes.has(e.from.slice(0, -4)))),
    );
  };
  const seen = new Set([from]);
  let frontier: { at: string; way: { edge: LaidEdge; to: string }[] }[] = [{ at: from, way: [] }];
  while (frontier.length) {
    const next: typeof frontier = [];
    for (const { at, way } of frontier) {
      for (const edge of outOf(at)) {
        const to = leafOf(byPath, edge.to);
        const hop = [...way, { edge, to }];
        if (goal.has(to)) return hop;
        if (seen.has(to) || !byPath.get(to)?.passThrough) continue;
        seen.add(to);
        next.push({ at: to, way: hop });
      }
    }
    frontier = next;
  }
  return undefined;
}
