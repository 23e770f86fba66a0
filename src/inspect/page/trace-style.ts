/**
 * The style of the waterfall, of what a model saw (the memories it recalled too) and of a user's
 * memory (served with the page's style, `/app.css`).
 */
export const TRACE_STYLE = `
.wf { font-size: 12px; }
.wf-row { display: grid; grid-template-columns: 260px 1fr 300px; gap: 8px; align-items: center; min-height: 20px; border-bottom: 1px dotted var(--line); }
.wf-axis { color: var(--muted); border-bottom: 1px solid var(--line); }
.wf-label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.wf-track { position: relative; height: 14px; }
.wf-bar { position: absolute; top: 1px; height: 12px; min-width: 2px; padding: 0; border: 0; border-radius: 2px; background: #3b82f6; cursor: default; }
button.wf-bar { cursor: pointer; }
button.wf-bar:focus-visible { outline: 2px solid var(--fg); outline-offset: 1px; }
.wf-model { background: #6d28d9; }
.wf-tool { background: #0e7490; }
.wf-approval, .wf-guardrail { background: #a16207; }
.wf-approval-wait { background: repeating-linear-gradient(45deg, #fde68a, #fde68a 4px, #fff7d6 4px, #fff7d6 8px); border: 1px solid var(--hiline); }
.wf-run { background: #cbd5e1; height: 6px; top: 4px; }
.wf-error { background: var(--err); }
.wf-rejected { background: repeating-linear-gradient(90deg, var(--muted), var(--muted) 4px, transparent 4px, transparent 6px); }
.wf-open { opacity: 0.7; }
.wf-wait-retry { position: absolute; top: 5px; height: 4px; background: repeating-linear-gradient(90deg, var(--err), var(--err) 3px, transparent 3px, transparent 6px); }
.wf-facts { color: var(--muted); }
.wf-reason { white-space: normal; }
.model-request { border-top: 1px solid var(--line); margin-top: 8px; }
.model-request h3 { font-size: 13px; margin: 8px 0 4px; }
.model-request h4 { font-size: 12px; margin: 8px 0 2px; }
.sent-items, .sent-tools { margin: 2px 0; padding-left: 20px; }
.recalled-text, .memory-text { white-space: pre-wrap; overflow-wrap: anywhere; }
.recalled-score { font-variant-numeric: tabular-nums; }
.working-memory pre { white-space: pre-wrap; }
.tt-context { width: auto; margin: 4px 0; }
.tt-context tr.changed td { background: var(--hi); }
.tt-added { margin: 2px 0; padding-left: 20px; }
.origin-diff { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.only-here { color: var(--ok); }
.only-parent { color: var(--err); }
.only-here, .only-parent { margin: 2px 0; padding-left: 4px; list-style: none; }
`;
