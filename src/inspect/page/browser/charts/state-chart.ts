import { markerLines, stateLines, type ChartLayout, type LaidState } from './chart-layout.js';
import { dur } from '../format.js';
import { activePaths, type RunPath } from './state-chart-path.js';

const SVGNS = 'http://www.w3.org/2000/svg';
/** Baseline of a box's first line, and the line height (as `scripts/chart-layouts.ts` sizes). */
const FIRST = 13;
const LINE_H = 14;

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** What a chart shows over its machine: a run's path, and what a click on a state does. */
export interface ChartOverlay {
  /** Unique in the page: the id of its arrowheads. */
  id: string;
  path?: RunPath | undefined;
  /** The sub-agent runs each state holds (the state that spawns them). */
  children?: Map<string, number> | undefined;
  /** What those children are, in the state's badge and name. @default 'sub-agent run' */
  childKind?: string | undefined;
  onSelect?: ((state: string) => void) | undefined;
}

/** A state's visit in words: "entered 2×, 1.2 s there". */
export function visitText(path: RunPath | undefined, state: string): string {
  const v = path?.visits.get(state);
  if (!v) return '';
  return `entered ${v.entered}×${v.ms ? `, ${dur(v.ms)} there` : ''}`;
}

/**
 * A machine's chart in SVG from its build-time layout (`chart-layouts.ts`): states as boxes
 * (compound ones holding theirs, final ones double-bordered, what they invoke written in them),
 * initial dots, transitions as arrows labelled with their event and guard. The current state
 * (`state`) and its ancestors are highlighted; with a run's path, the states and transitions it
 * took too, each visited state with how often it entered it and its time there. Each state is
 * focusable (Tab) and says what it is; Enter or a click selects it.
 */
export function drawChart(
  kind: string,
  layout: ChartLayout,
  state: string,
  overlay: ChartOverlay,
): SVGElement {
  const current = activePaths(state);
  const run = overlay.path;
  const root = svg('svg', {
    width: layout.width,
    height: layout.height,
    viewBox: `0 0 ${layout.width} ${layout.height}`,
    'data-chart': kind,
    role: 'group',
    'aria-label': `${layout.machine} machine${state ? `, in ${state}` : ''}`,
  });
  const defs = svg('defs', {});
  for (const which of ['plain', 'taken']) {
    const marker = svg('marker', {
      id: `${overlay.id}-${which}`,
      viewBox: '0 0 10 10',
      refX: 9,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      orient: 'auto-start-reverse',
      class: `arrow ${which}`,
    });
    marker.appendChild(svg('path', { d: 'M0,0 L10,5 L0,10 z' }));
    defs.appendChild(marker);
  }
  root.appendChild(defs);

  for (const s of layout.states) root.appendChild(drawState(s, current, overlay));
  for (const m of layout.markers) {
    if (m.kind === 'initial') {
      root.appendChild(
        svg('circle', { cx: m.x + m.w / 2, cy: m.y + m.h / 2, r: 5, class: 'initial' }),
      );
      continue;
    }
    const group = m.kind === 'group';
    const g = svg('g', { class: group ? 'group-marker' : 'any-state', 'data-marker': m.id });
    g.appendChild(svg('rect', { x: m.x, y: m.y, width: m.w, height: m.h, rx: 4 }));
    markerLines(m).forEach((line, i) =>
      g.appendChild(
        svg(
          'text',
          { x: m.x + 8, y: m.y + FIRST + i * LINE_H, ...(group && i ? { class: 'detail' } : {}) },
          line,
        ),
      ),
    );
    root.appendChild(g);
  }
  for (const e of layout.edges) {
    // A transition gathered in a group marker is a line of it; the marker's arrow is drawn.
    if (e.groupedIn) continue;
    const taken =
      run?.edges.has(e.id) === true || e.gathers?.some((id) => run?.edges.has(id)) === true;
    const g = svg('g', {
      class: `edge${taken ? ' taken' : ''}${e.gathers ? ' group' : e.event === '' ? ' initial' : ''}`,
      'data-edge': e.id,
      'data-from': e.from,
      'data-to': e.to,
      'data-event': e.event,
    });
    g.appendChild(
      svg('path', {
        d: e.points.map(([x, y], i) => `${i ? 'L' : 'M'}${x},${y}`).join(' '),
        'marker-end': `url(#${overlay.id}-${taken ? 'taken' : 'plain'})`,
      }),
    );
    if (e.labelBox) {
      const b = e.labelBox;
      g.appendChild(svg('rect', { x: b.x, y: b.y, width: b.w, height: b.h, class: 'label-bg' }));
      g.appendChild(
        svg(
          'text',
          { x: b.x + b.w / 2, y: b.y + b.h - 3, class: 'edge-label', 'text-anchor': 'middle' },
          e.label,
        ),
      );
    }
    root.appendChild(g);
  }
  return root;
}

/** One state: its box (two for a final state), its lines, and its visit badge. */
function drawState(s: LaidState, current: Set<string>, overlay: ChartOverlay): SVGElement {
  const visit = overlay.path?.visits.get(s.path);
  const children = overlay.children?.get(s.path) ?? 0;
  const compound = s.type === 'compound' || s.type === 'parallel';
  const lines = compound ? [s.key] : stateLines(s);
  const badgeText = [
    visit ? `${visit.entered}×` : '',
    visit?.ms ? dur(visit.ms) : '',
    children ? `${children} ${overlay.childKind ?? 'sub-run'}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  // The name starts with what the box shows (its lines and badge), then says the rest.
  const label = [
    `${[...lines, badgeText].filter(Boolean).join(' ')}: state ${s.path}`,
    s.type === 'final' ? 'final' : '',
    current.has(s.path) ? 'current' : '',
    visitText(overlay.path, s.path),
    visit?.steps.length ? `${visit.steps.length} step(s)` : '',
    children ? `${children} ${overlay.childKind ?? 'sub-agent run'}(s)` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const g = svg('g', {
    class: `state-node${compound ? ' compound' : ''}`,
    'data-state': s.path,
    tabindex: 0,
    role: overlay.onSelect ? 'button' : 'img',
    'aria-label': label,
  });
  const classes = ['state', s.type];
  if (current.has(s.path)) classes.push('current');
  if (visit) classes.push('visited');
  if (s.passThrough) classes.push('pass');
  const rect = svg('rect', {
    x: s.x,
    y: s.y,
    width: s.w,
    height: s.h,
    rx: compound ? 8 : 5,
    class: classes.join(' '),
    'data-state': s.path,
  });
  g.appendChild(rect);
  if (s.type === 'final') {
    g.appendChild(
      svg('rect', {
        x: s.x + 3,
        y: s.y + 3,
        width: s.w - 6,
        height: s.h - 6,
        rx: 3,
        class: 'final-inner',
      }),
    );
  }
  const top = s.y + (s.type === 'final' ? 2 : 0);
  lines.forEach((line, i) =>
    g.appendChild(
      svg(
        'text',
        {
          x: s.x + 8,
          y: top + FIRST + i * LINE_H,
          class: i ? 'detail' : 'name',
          // its name says it all (screen readers would read the lines run together)
          'aria-hidden': 'true',
        },
        // a space between the lines for what reads the text run together (SVG drops it)
        `${line} `,
      ),
    ),
  );
  if (badgeText) {
    const text = badgeText;
    const w = Math.ceil(text.length * 6.4) + 8;
    const badge = svg('g', { class: 'visits', 'aria-hidden': 'true' });
    badge.appendChild(
      svg('rect', { x: s.x + s.w - w + 4, y: s.y - 8, width: w, height: 14, rx: 7 }),
    );
    badge.appendChild(svg('text', { x: s.x + s.w - w + 8, y: s.y + 3 }, `${text} `));
    g.appendChild(badge);
  }
  const select = overlay.onSelect;
  if (select) {
    g.addEventListener('click', (event) => {
      event.stopPropagation();
      select(s.path);
    });
    g.addEventListener('keydown', (event) => {
      const key = event.key;
      if (key !== 'Enter' && key !== ' ') return;
      event.preventDefault();
      select(s.path);
    });
  }
  return g;
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
