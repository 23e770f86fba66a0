import type { ChartGraph, WorkflowHop } from '../workflow-api-types.js';
import type { ChartLayout } from './chart-layout.js';
import { activePaths, type RunPath } from './state-chart-path.js';

/**
 * A journaled event's type as the chart names its transitions: an invoked actor's end
 * (`xstate.done.actor.<id>`) reads `onDone(<src>)`, a delay (`xstate.after.<ms>.<state>`)
 * `after(<ms>)`, an app event its own type.
 */
export function chartEvent(type: string, graph: ChartGraph): string {
  const ended = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
  if (ended) {
    const id = ended[2]!;
    const src = graph.states.flatMap((s) => s.invokes).find((i) => i.id === id)?.src ?? id;
    return `${ended[1] === 'done' ? 'onDone' : 'onError'}(${src})`;
  }
  const delayed = /^xstate\.after\.([^.]+)\./.exec(type);
  return delayed ? `after(${delayed[1]})` : type;
}

/** The state an edge leaves: a state's path, or the compound of an `#any` / `#initial` marker. */
function sourceOf(from: string): string {
  const at = from.indexOf('#');
  return at < 0 ? from : from.slice(0, at);
}

/**
 * The path a workflow instance took through its chart, from its journal: each event it took
 * (a hop) moved it from the state it was in to the one journaled with the event. The edges
 * taken are those of that event leaving a state it was in for a state it reached (with the
 * initial edges of each compound state it entered); each state's visits count how often it was
 * entered and its time there (until the next hop: the state it is in now has no end yet).
 */
export function workflowPath(
  layout: ChartLayout,
  graph: ChartGraph,
  hops: readonly WorkflowHop[],
): RunPath {
  const visits: RunPath['visits'] = new Map();
  const edges = new Set<string>();
  let before = new Set<string>();
  hops.forEach((hop, i) => {
    const now = activePaths(hop.state);
    const entered = new Set([...now].filter((p) => !before.has(p)));
    if (i === 0) entered.add('');
    const next = hops[i + 1];
    for (const p of now) {
      const visit = visits.get(p) ?? { entered: 0, ms: 0, steps: [] };
      if (entered.has(p)) visit.entered++;
      if (next) visit.ms += Math.max(0, next.at - hop.at);
      visits.set(p, visit);
    }
    const event = chartEvent(hop.type, graph);
    for (const e of layout.edges) {
      const from = sourceOf(e.from);
      const initial = e.event === '' && e.from.endsWith('#initial') && entered.has(from);
      const moved = i > 0 && e.event === event && (from === '' || before.has(from));
      if ((initial || moved) && now.has(e.to)) edges.add(e.id);
    }
    before = now;
  });
  const last = hops[hops.length - 1];
  return { visits, edges, current: activePaths(last?.state) };
}
