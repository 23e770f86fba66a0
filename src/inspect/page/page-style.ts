import { CHART_STYLE } from './chart-style.js';

/** The inspector page's style sheet (served as `/app.css`). */
export const PAGE_STYLE = `
:root { --fg: #1d2330; --muted: #667085; --line: #d0d5dd; --bg: #f7f8fa; --hi: #fff4c2; --hiline: #d69e00; --err: #b42318; --ok: #067647; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 16px; margin: 0; }
#controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
main { display: grid; grid-template-columns: minmax(260px, 28%) 1fr; gap: 12px; padding: 12px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px; min-width: 0; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
tr.session { cursor: pointer; }
tr.session:hover, tr.session.selected { background: var(--hi); }
h2 { font-size: 14px; margin: 12px 0 6px; }
h2:first-child { margin-top: 0; }
button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
button:hover { border-color: var(--fg); }
button.primary { background: #1d4ed8; color: #fff; border-color: #1d4ed8; }
button.danger { color: var(--err); }
input, select { font: inherit; padding: 2px 4px; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; background: #eef2f6; font-size: 12px; }
.badge.restart { background: #fde7e7; color: var(--err); }
.badge.error { background: #fde7e7; color: var(--err); }
.badge.live { background: #dcfae6; color: var(--ok); }
.badge.held { background: #fff4c2; color: #7a5300; }
.charts { display: flex; gap: 12px; flex-wrap: wrap; align-items: flex-start; }
.chart { border: 1px solid var(--line); border-radius: 4px; padding: 4px; overflow: auto; max-width: 100%; }
svg rect.state { fill: #fff; stroke: #98a2b3; }
svg rect.state.compound { fill: #f9fafb; }
svg rect.state.final { stroke-width: 2; }
svg rect.state.current { fill: var(--hi); stroke: var(--hiline); stroke-width: 2; }
svg text { font: 11px system-ui, sans-serif; fill: var(--fg); }
svg text.invoke { fill: var(--muted); font-size: 10px; }
.timeline { list-style: none; margin: 0; padding: 0; }
.timeline li { border-left: 3px solid var(--line); margin: 4px 0; padding: 2px 8px; }
.timeline li.model { border-color: #6172f3; }
.timeline li.tool { border-color: #12b76a; }
.timeline li.approval { border-color: #f79009; }
.timeline li.failed { border-color: var(--err); }
.subrun { margin-left: 18px; border-left: 2px dashed var(--line); padding-left: 8px; }
pre { background: #f2f4f7; padding: 6px; overflow: auto; max-height: 320px; margin: 4px 0; font-size: 12px; }
.pending { border: 1px solid var(--hiline); background: #fffbeb; padding: 6px; border-radius: 4px; margin: 4px 0; }
.actions { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; margin: 6px 0; }
#live-log { max-height: 160px; overflow: auto; font-family: ui-monospace, monospace; font-size: 11px; }
.message { padding: 2px 0; border-bottom: 1px dotted var(--line); white-space: pre-wrap; }
.error-box { color: var(--err); }
${CHART_STYLE}`;
