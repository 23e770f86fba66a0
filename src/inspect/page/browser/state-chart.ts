import type { ChartState } from './api-types.js';

const SVGNS = 'http://www.w3.org/2000/svg';
const BOX = { w: 118, h: 38, pad: 8, title: 18, perRow: 4 };

/** A state laid out: its size, its place, and (compound) its children in rows. */
interface Laid {
  state: ChartState;
  w: number;
  h: number;
  x: number;
  y: number;
  rows: Laid[][] | undefined;
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** Sizes every state: an atomic one is a box; a compound one holds rows of its children. */
function measure(state: ChartState): Laid {
  if (!state.states.length) return { state, w: BOX.w, h: BOX.h, x: 0, y: 0, rows: undefined };
  const children = state.states.map(measure);
  const rows: Laid[][] = [];
  for (let i = 0; i < children.length; i += BOX.perRow)
    rows.push(children.slice(i, i + BOX.perRow));
  const w = Math.max(BOX.w, ...rows.map((row) => row.reduce((s, c) => s + c.w + BOX.pad, BOX.pad)));
  const h =
    BOX.title + rows.reduce((s, row) => s + Math.max(...row.map((c) => c.h)) + BOX.pad, BOX.pad);
  return { state, w, h, x: 0, y: 0, rows };
}

/** Places `node` at (x, y) and its children in their rows; every node into `out`, parents first. */
function place(node: Laid, x: number, y: number, out: Laid[]): void {
  node.x = x;
  node.y = y;
  out.push(node);
  if (!node.rows) return;
  let cy = y + BOX.title + BOX.pad;
  for (const row of node.rows) {
    let cx = x + BOX.pad;
    let tall = 0;
    for (const c of row) {
      place(c, cx, cy, out);
      cx += c.w + BOX.pad;
      tall = Math.max(tall, c.h);
    }
    cy += tall + BOX.pad;
  }
}

/** The state paths to highlight for a state name like 'approvals.checking' or 'active.running'. */
function activePaths(state: string | null | undefined): Set<string> {
  const out = new Set<string>();
  for (const full of String(state || '').split(',')) {
    const parts = full.split('.');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
  }
  return out;
}

/**
 * A machine's states (from `/api/machines`, laid out from the machine's own state nodes) drawn
 * as nested boxes in SVG, compound states holding their children in rows, the current state
 * (`state`) and its ancestors highlighted.
 */
export function drawChart(kind: string, chart: ChartState, state: string): SVGElement {
  const root = measure(chart);
  const nodes: Laid[] = [];
  place(root, 1, 1, nodes);
  const active = activePaths(state);
  const el = svg('svg', { width: root.w + 2, height: root.h + 2, 'data-chart': kind, role: 'img' });
  for (const n of nodes) {
    const s = n.state;
    const classes = ['state', s.type];
    if (s.path && active.has(s.path)) classes.push('current');
    const rect = svg('rect', {
      x: n.x,
      y: n.y,
      width: n.w,
      height: n.h,
      rx: 5,
      class: classes.join(' '),
      'data-state': s.path || '(root)',
    });
    const title = svg('text', { x: n.x + 6, y: n.y + 13 });
    title.textContent = s.key + (s.type === 'final' ? ' (final)' : '');
    el.appendChild(rect);
    el.appendChild(title);
    if (s.invokes.length) {
      const inv = svg('text', { x: n.x + 6, y: n.y + 27, class: 'invoke' });
      inv.textContent = `invokes ${s.invokes.join(', ')}`;
      el.appendChild(inv);
    }
    const events = s.transitions
      .map((t) => t.event)
      .filter((e, i, a) => e !== 'always' && a.indexOf(e) === i);
    const tip = svg('title', {});
    tip.textContent = s.path + (events.length ? ` — on ${events.join(', ')}` : '');
    rect.appendChild(tip);
  }
  return el;
}

/** Moves the highlight of a drawn chart to another state (live mode). */
export function highlight(kind: string, state: string): void {
  const chart = document.querySelector(`svg[data-chart="${kind}"]`);
  if (!chart) return;
  const active = activePaths(state);
  chart.querySelectorAll('rect.state').forEach((rect) => {
    rect.classList.toggle('current', active.has(rect.getAttribute('data-state') ?? ''));
  });
}
