/**
 * The page's colours, light and dark (served after `PAGE_STYLE` in `/app.css`, so its rules
 * win): the dark ones follow the browser's `prefers-color-scheme` unless the page's toggle set
 * `data-theme` on the document. Views colour with these variables: `--fg`, `--muted`, `--line`,
 * `--bg`, `--panel` (a pane), `--soft` (a badge, a code block), `--hi` and `--hiline` (what is
 * current), `--err`, `--ok`, `--warn-bg`, `--link`, `--focus`.
 */
const LIGHT =
  '--fg: #1d2330; --muted: #5d6679; --line: #d0d5dd; --bg: #f7f8fa; --panel: #ffffff; --soft: #eef2f6; --hi: #fff4c2; --hiline: #b07f00; --err: #b42318; --err-bg: #fde7e7; --ok: #05603a; --ok-bg: #dcfae6; --warn-bg: #fffbeb; --link: #1d4ed8; --focus: #1d4ed8; color-scheme: light;';
const DARK =
  '--fg: #e4e7ec; --muted: #a4acbb; --line: #3a4150; --bg: #12151b; --panel: #1b1f27; --soft: #2a303c; --hi: #4a3d0a; --hiline: #f5c542; --err: #ff8a80; --err-bg: #4a1d1a; --ok: #6ee7a8; --ok-bg: #133324; --warn-bg: #3a300c; --link: #8ab4ff; --focus: #8ab4ff; color-scheme: dark;';

export const THEME_STYLE = `
:root, :root[data-theme="light"] { ${LIGHT} }
@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) { ${DARK} } }
:root[data-theme="dark"] { ${DARK} }
header, section, button, input, select { background: var(--panel); color: var(--fg); }
input, select { border: 1px solid var(--line); border-radius: 3px; }
.badge { background: var(--soft); color: var(--fg); }
.badge.restart, .badge.error { background: var(--err-bg); color: var(--err); }
.badge.live { background: var(--ok-bg); color: var(--ok); }
.badge.held { background: var(--hi); color: var(--fg); }
pre { background: var(--soft); color: var(--fg); }
.pending { background: var(--warn-bg); }
a { color: var(--link); }
button.primary { background: var(--link); color: var(--panel); border-color: var(--link); }
svg rect.state { fill: var(--panel); }
svg rect.state.compound { fill: var(--soft); }
svg text { fill: var(--fg); }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 1px; }
`;
