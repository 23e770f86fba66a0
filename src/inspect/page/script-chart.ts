/**
 * The page's state charts: a machine's states (from `/api/machines`, laid out from the
 * machine's own state nodes) drawn as nested boxes in SVG, compound states holding their
 * children in rows, the current state and its ancestors highlighted.
 */
export const SCRIPT_CHART = String.raw`
var SVGNS = 'http://www.w3.org/2000/svg';
var BOX = { w: 118, h: 38, pad: 8, title: 18, perRow: 4 };
function svg(tag, attrs) {
  var el = document.createElementNS(SVGNS, tag);
  Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, String(attrs[k])); });
  for (var i = 2; i < arguments.length; i++) if (arguments[i]) el.appendChild(arguments[i]);
  return el;
}
/** Sizes every state: an atomic one is a box; a compound one holds rows of its children. */
function measure(node) {
  if (!node.states.length) { node.w = BOX.w; node.h = BOX.h; return node; }
  node.states.forEach(measure);
  var rows = [];
  for (var i = 0; i < node.states.length; i += BOX.perRow) rows.push(node.states.slice(i, i + BOX.perRow));
  node.rows = rows;
  node.w = Math.max(BOX.w, Math.max.apply(null, rows.map(function (row) {
    return row.reduce(function (s, c) { return s + c.w + BOX.pad; }, BOX.pad);
  })));
  node.h = BOX.title + rows.reduce(function (s, row) {
    return s + Math.max.apply(null, row.map(function (c) { return c.h; })) + BOX.pad;
  }, BOX.pad);
  return node;
}
function place(node, x, y, out) {
  node.x = x; node.y = y; out.push(node);
  if (!node.rows) return;
  var cy = y + BOX.title + BOX.pad;
  node.rows.forEach(function (row) {
    var cx = x + BOX.pad;
    var tall = 0;
    row.forEach(function (c) { place(c, cx, cy, out); cx += c.w + BOX.pad; tall = Math.max(tall, c.h); });
    cy += tall + BOX.pad;
  });
}
/** The state paths to highlight for a state name like 'approvals.checking' or 'active.running'. */
function activePaths(state) {
  var out = {};
  String(state || '').split(',').forEach(function (full) {
    var parts = full.split('.');
    for (var i = 1; i <= parts.length; i++) out[parts.slice(0, i).join('.')] = true;
  });
  return out;
}
function drawChart(kind, chart, state) {
  var root = measure(JSON.parse(JSON.stringify(chart)));
  var nodes = [];
  place(root, 1, 1, nodes);
  var active = activePaths(state);
  var el = svg('svg', { width: root.w + 2, height: root.h + 2, 'data-chart': kind, role: 'img' });
  nodes.forEach(function (n) {
    var classes = ['state', n.type];
    if (n.path && active[n.path]) classes.push('current');
    var rect = svg('rect', { x: n.x, y: n.y, width: n.w, height: n.h, rx: 5, class: classes.join(' '),
      'data-state': n.path || '(root)' });
    var title = svg('text', { x: n.x + 6, y: n.y + 13 });
    title.textContent = n.key + (n.type === 'final' ? ' (final)' : '');
    el.appendChild(rect);
    el.appendChild(title);
    if (n.invokes.length) {
      var inv = svg('text', { x: n.x + 6, y: n.y + 27, class: 'invoke' });
      inv.textContent = 'invokes ' + n.invokes.join(', ');
      el.appendChild(inv);
    }
    var events = n.transitions.map(function (t) { return t.event; }).filter(function (e, i, a) {
      return e !== 'always' && a.indexOf(e) === i;
    });
    var tip = svg('title', {});
    tip.textContent = n.path + (events.length ? ' — on ' + events.join(', ') : '');
    rect.appendChild(tip);
  });
  return el;
}
/** Moves the highlight of a drawn chart to another state (live mode). */
function highlight(kind, state) {
  var chart = document.querySelector('svg[data-chart="' + kind + '"]');
  if (!chart) return;
  var active = activePaths(state);
  chart.querySelectorAll('rect.state').forEach(function (rect) {
    var path = rect.getAttribute('data-state');
    rect.classList.toggle('current', !!active[path]);
  });
}
`;
