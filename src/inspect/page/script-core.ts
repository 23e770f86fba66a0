/**
 * The page script's base (plain browser JavaScript, no framework): state, the DOM builder,
 * formatting and the JSON API (its requests carry the page's HttpOnly cookie).
 */
export const SCRIPT_CORE = String.raw`
var S = { info: null, machines: null, user: '', status: '', sessions: [], cursor: null,
  selected: null, detail: null, runId: null, run: null, live: null, liveStates: {}, error: '', result: '', asked: 0,
  forkId: '', forkAt: '' };

function h(tag, attrs) {
  var el = document.createElement(tag);
  var a = attrs || {};
  Object.keys(a).forEach(function (k) {
    var v = a[k];
    if (v === undefined || v === null || v === false) return;
    if (k.indexOf('on') === 0) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  });
  for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
  return el;
}
function append(el) {
  for (var i = 1; i < arguments.length; i++) {
    var child = arguments[i];
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) { child.forEach(function (c) { append(el, c); }); continue; }
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}
function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }
function time(ms) { return ms === undefined || ms === null ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19); }
function dur(ms) { return ms === undefined || ms === null ? '' : ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(2) + ' s'; }
function usd(v) { return v === undefined || v === null ? 'n/a' : '$' + Number(v).toFixed(6); }
function tokens(u) { return u ? u.inputTokens + ' in / ' + u.outputTokens + ' out' : ''; }
function json(value) { return h('pre', { class: 'json' }, JSON.stringify(value, null, 2)); }
function userQuery() { return S.user ? 'user=' + encodeURIComponent(S.user) : ''; }
function withUser(path) { var q = userQuery(); return q ? path + (path.indexOf('?') < 0 ? '?' : '&') + q : path; }
function sessionPath(id) { return '/api/sessions/' + encodeURIComponent(id); }

function api(path) {
  return fetch(withUser(path), { headers: { accept: 'application/json' } }).then(answer);
}
function act(sessionId, action, body) {
  return fetch(withUser(sessionPath(sessionId) + '/' + action), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body || {}),
  }).then(answer);
}
function answer(res) {
  return res.json().then(function (body) {
    if (!res.ok) {
      var e = body && body.error ? body.error : { code: 'HTTP_' + res.status, message: res.statusText };
      throw new Error(e.code + ': ' + e.message);
    }
    return body;
  });
}
function fail(error) {
  S.error = String(error && error.message ? error.message : error);
  var box = document.getElementById('error');
  if (box) box.textContent = S.error;
}

function startLive() {
  if (S.live) S.live.close();
  var q = userQuery();
  S.live = new EventSource('/api/live' + (q ? '?' + q : ''));
  S.live.onmessage = function (message) { onFrame(JSON.parse(message.data)); };
}
var refreshTimer = null;
function onFrame(frame) {
  var log = document.getElementById('live-log');
  if (log) {
    log.insertBefore(h('div', { class: 'frame' }, frame.sessionId + ' ' + frame.src + ' ' +
      frame.type.replace('@xstate.', '') + ' ' + (frame.eventType || frame.state || '')), log.firstChild);
    while (log.childNodes.length > 200) log.removeChild(log.lastChild);
  }
  if (!S.detail || frame.sessionId !== S.detail.session.sessionId || frame.type !== '@xstate.snapshot') return;
  if (frame.src === 'session' && frame.state) highlight('session', frame.state);
  if ((frame.src === 'run' || frame.src === 'subRun') && frame.state && frame.runId === S.runId) {
    highlight('run', frame.state);
    var label = document.getElementById('run-state');
    if (label) label.textContent = frame.state;
  }
  if (refreshTimer) clearTimeout(refreshTimer);
  refreshTimer = setTimeout(function () { refreshTimer = null; openSession(S.selected); }, 150);
}
`;
