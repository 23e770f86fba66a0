/** The style of the sessions list, its filters and pager, and the live feed (in `/app.css`). */
export const LIST_STYLE = `
.list-filters { display: flex; gap: 6px; flex-wrap: wrap; margin: 0 0 6px; }
.pager { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 6px 0; }
.pager button[disabled] { opacity: 0.5; cursor: default; }
a.session-link { font-weight: 600; text-decoration: none; }
a.session-link:hover, a.session-link:focus-visible { text-decoration: underline; }
.row-reason { color: var(--err); font-size: 12px; overflow-wrap: anywhere; }
.hint { font-style: italic; }
ol.feed, #live-log.feed { list-style: none; margin: 0; padding: 0; max-height: 320px; overflow: auto; font: inherit; }
ol.feed li { border-bottom: 1px dotted var(--line); }
button.feed-line { display: block; width: 100%; text-align: left; border: 0; border-radius: 0; padding: 2px 4px; background: transparent; font-size: 12px; }
button.feed-line:hover { background: var(--hi); }
.step-target { outline: 2px solid var(--hiline); background: var(--hi); }
.reject-message { min-width: 16em; }
`;
