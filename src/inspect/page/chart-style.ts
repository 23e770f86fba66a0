/**
 * The statecharts' part of the page's style sheet (`page-style.ts` appends it): states, edges,
 * the run's path and the current state, in light and dark colour schemes (the dark one under
 * the system's `prefers-color-scheme` or the page's toggle, as `page-theme.ts` does). Chart
 * text is 11px at the chart's own size, which the page opens it at (scrolling when wider than
 * its pane): "fit to width" shrinks it on demand.
 */
export const CHART_STYLE = `
.charts { --c-bg: #ffffff; --c-box: #ffffff; --c-compound: #f5f7fa; --c-line: #98a2b3; --c-text: #1d2330; --c-muted: #5d6679; --c-path: #1d4ed8; --c-pathbg: #e8efff; --c-on-path: #ffffff; --c-cur: #fff4c2; --c-curline: #b07a00; --c-focus: #7c3aed; }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) .charts { --c-bg: #1b1f27; --c-box: #232936; --c-compound: #181c24; --c-line: #7b8494; --c-text: #e4e7ec; --c-muted: #a4acbb; --c-path: #8ab4ff; --c-pathbg: #1e2b4a; --c-on-path: #12151b; --c-cur: #4a3d0a; --c-curline: #f5c542; --c-focus: #c4b5fd; }
}
:root[data-theme="dark"] .charts { --c-bg: #1b1f27; --c-box: #232936; --c-compound: #181c24; --c-line: #7b8494; --c-text: #e4e7ec; --c-muted: #a4acbb; --c-path: #8ab4ff; --c-pathbg: #1e2b4a; --c-on-path: #12151b; --c-cur: #4a3d0a; --c-curline: #f5c542; --c-focus: #c4b5fd; }
.charts .chart { background: var(--c-bg); color: var(--c-text); }
.charts > .chart:has(.run-chart) { flex: 1 1 100%; }
.chart-scroll { overflow: auto; max-width: 100%; max-height: 80vh; }
.charts svg { max-width: none; height: auto; display: block; }
.chart-scroll.fit svg { max-width: 100%; }
.chart-zoom { font-size: 11px; padding: 0 6px; }
.run-chart { margin: 4px 0; }
.subcharts { margin-left: 16px; padding-left: 8px; border-left: 2px dashed var(--c-line); }
.chart-head { margin: 4px 0; }
.charts .muted { color: var(--c-muted); }
.charts .badge:not(.held) { background: var(--c-compound); color: var(--c-text); border: 1px solid var(--c-line); }
.chart-link { color: var(--c-path); }
.state-steps { font-size: 12px; margin: 4px 0 8px; }
.chart-steps { margin: 2px 0; padding-left: 18px; }
.charts svg text { font: 11px system-ui, sans-serif; fill: var(--c-text); }
.charts svg text.detail { fill: var(--c-muted); }
.charts svg rect.state { fill: var(--c-box); stroke: var(--c-line); stroke-width: 1; }
.charts svg rect.state.compound, .charts svg rect.state.parallel { fill: var(--c-compound); }
.charts svg rect.state.pass { stroke-dasharray: 3 2; }
.charts svg rect.state.final, .charts svg rect.final-inner { fill: none; stroke: var(--c-line); stroke-width: 1.5; }
.charts svg rect.state.final { fill: var(--c-box); }
.charts svg rect.state.visited { stroke: var(--c-path); stroke-width: 2; fill: var(--c-pathbg); }
.charts svg rect.state.compound.visited { fill: var(--c-compound); }
.charts svg rect.state.current { fill: var(--c-cur); stroke: var(--c-curline); stroke-width: 2.5; }
.charts svg g.state-node { cursor: pointer; outline: none; }
.charts svg g.state-node:focus > rect.state, .charts svg g.state-node.selected > rect.state { stroke: var(--c-focus); stroke-width: 3; }
.charts svg circle.initial { fill: var(--c-text); }
.charts svg g.any-state rect { fill: none; stroke: var(--c-line); stroke-dasharray: 4 3; }
.charts svg g.edge path { fill: none; stroke: var(--c-line); stroke-width: 1.2; }
.charts svg g.edge rect.label-bg { fill: var(--c-bg); opacity: 0.85; }
.charts svg g.edge text.edge-label { fill: var(--c-muted); }
.charts svg g.edge.taken path { stroke: var(--c-path); stroke-width: 2.5; }
.charts svg g.edge.taken text.edge-label { fill: var(--c-path); font-weight: 600; }
.charts svg marker.arrow.plain path { fill: var(--c-line); }
.charts svg marker.arrow.taken path { fill: var(--c-path); }
.charts svg g.visits rect { fill: var(--c-path); }
.charts svg g.visits text { fill: var(--c-on-path); }
.charts svg g.group-marker rect { fill: var(--c-compound); stroke: var(--c-line); stroke-dasharray: 4 3; }
.charts svg g.group-marker text.detail { fill: var(--c-text); }
.compact-path { display: flex; flex-wrap: wrap; gap: 2px 4px; align-items: center; margin: 4px 0; padding: 0; list-style: none; font-size: 12px; }
.compact-path li { display: inline-flex; gap: 4px; align-items: center; }
.compact-path .hop { border: 1px solid var(--c-path); background: var(--c-pathbg); color: var(--c-text); border-radius: 4px; padding: 0 5px; }
.compact-path .hop.current { background: var(--c-cur); border-color: var(--c-curline); font-weight: 600; }
.compact-path .arrow { color: var(--c-muted); }
.chart-full-toggle { font-size: 12px; padding: 0 6px; }
`;
