/**
 * The page's views: controls (user, status filter, live), the sessions list, a session
 * (runs, pending approvals, actions, charts, history) and a run (timeline with sub-agent runs
 * nested and restarts marked, state changes per step, snapshot and RunState as JSON).
 */
export const SCRIPT_VIEWS = String.raw`
var STATUSES = ['', 'active', 'suspended', 'completed', 'failed', 'deleted'];
function renderControls() {
  var box = clear(document.getElementById('controls'));
  var user = S.info.allUsers
    ? h('input', { id: 'user', placeholder: 'user id (empty: anonymous)', value: S.user,
        onchange: function (e) { S.user = e.target.value.trim(); S.selected = null; loadSessions(); startLive(); } })
    : h('span', { class: 'badge', id: 'user' }, 'user: ' + (S.info.userId || '(anonymous)'));
  var status = h('select', { id: 'status-filter', onchange: function (e) { S.status = e.target.value; loadSessions(); } },
    STATUSES.map(function (s) { return h('option', { value: s, selected: s === S.status }, s || 'any status'); }));
  var mode = S.info.recordOnly
    ? h('span', { class: 'badge', id: 'mode', title: 'no agent of the app runs here' }, 'decisions are recorded; the run continues when the app resumes it')
    : h('span', { class: 'badge', id: 'mode' }, 'runs with: ' + S.info.agents.join(', '));
  append(box, [user, status, mode, h('span', { class: 'badge live', id: 'live-badge' }, 'live'),
    h('span', { class: 'error-box', id: 'error' }, S.error)]);
}

function loadSessions(more) {
  var q = '/api/sessions?limit=50' + (S.status ? '&status=' + S.status : '') + (more && S.cursor ? '&cursor=' + encodeURIComponent(S.cursor) : '');
  return api(q).then(function (page) {
    S.sessions = more ? S.sessions.concat(page.sessions) : page.sessions;
    S.cursor = page.nextCursor || null;
    renderSessions();
  }).catch(fail);
}
function renderSessions() {
  var box = clear(document.getElementById('sessions'));
  append(box, h('h2', {}, 'Sessions'));
  var rows = S.sessions.map(function (s) {
    return h('tr', { class: 'session' + (s.sessionId === S.selected ? ' selected' : ''), 'data-session': s.sessionId,
      onclick: function () { openSession(s.sessionId); } },
      h('td', {}, s.sessionId, s.parentId ? h('div', { class: 'muted' }, 'fork of ' + s.parentId) : null),
      h('td', {}, h('span', { class: 'badge' }, s.status), h('div', {}, runBadge(s.runStatus)),
        s.pendingApprovals ? h('div', { class: 'badge pending-count' }, s.pendingApprovals + ' pending') : null),
      h('td', {}, 'v' + s.version, h('div', { class: 'muted' }, time(s.updatedAt))),
      h('td', {}, soFar(s).inputTokens + soFar(s).outputTokens + ' tok', h('div', { class: 'muted' }, usd(soFar(s).costUsd))));
  });
  append(box, h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'session'), h('th', {}, 'status'), h('th', {}, 'version'), h('th', {}, 'usage'))),
    h('tbody', {}, rows)));
  if (!rows.length) append(box, h('p', { class: 'muted' }, 'No sessions.'));
  if (S.cursor) append(box, h('button', { onclick: function () { loadSessions(true); } }, 'more'));
  append(box, h('h2', {}, 'Live'), h('div', { id: 'live-log' }));
}

/** What the run does (running, crashed, paused and why) or how it ended, with its error's code. */
function runBadge(rs) {
  if (!rs) return null;
  var bad = rs.status === 'crashed' || rs.status === 'failed';
  return h('span', { class: 'badge run-status' + (bad ? ' error' : ''), 'data-run-status': rs.status },
    'run ' + rs.status + (rs.status === 'interrupted' && rs.interruption ? ' (' + rs.interruption + ')' : '') +
    (rs.error ? ' ' + rs.error.code : ''));
}
/** Why the run stopped: its typed error; a crashed run's way on. */
function runReason(rs) {
  if (!rs) return null;
  return h('div', { id: 'run-reason' },
    rs.status === 'crashed' ? h('div', { class: 'error-box' }, 'its process stopped with steps in flight: Resume goes on from the last stored step') : null,
    rs.error ? h('div', { class: 'error-box' }, rs.error.name + ': ' + rs.error.message + ' [' + rs.error.code + ']') : null);
}
/** The session's usage with what its run in progress used so far. */
function soFar(s) { return s.usageSoFar || s.usage; }

/**
 * Opens a session: its detail and its newest run, shown together once both are in. An answer
 * for a session (or run) asked before the last one asked is dropped: it never replaces what the
 * user opened after it.
 */
function openSession(id) {
  if (id !== S.selected) { S.result = ''; S.forkId = ''; S.forkAt = ''; }
  S.selected = id;
  var asked = ++S.asked;
  return api(sessionPath(id)).then(function (detail) {
    var runId = detail.runs[0] ? detail.runs[0].runId : null;
    if (asked !== S.asked) return;
    return (runId ? api(sessionPath(id) + '/runs/' + encodeURIComponent(runId)) : Promise.resolve(null)).then(function (run) {
      if (asked !== S.asked) return;
      S.detail = detail; S.runId = runId; S.run = run;
      document.querySelectorAll('tr.session').forEach(function (tr) {
        tr.classList.toggle('selected', tr.getAttribute('data-session') === id);
      });
      renderDetail();
    });
  }).catch(function (error) { if (asked === S.asked) fail(error); });
}
/** The session on the page (the one its buttons act on). */
function shown() { return S.detail.session.sessionId; }

function renderDetail() {
  var d = S.detail, s = d.session, box = clear(document.getElementById('detail'));
  append(box, h('h2', {}, 'Session ', h('span', { id: 'session-id' }, s.sessionId)),
    h('p', {}, h('span', { class: 'badge', id: 'session-state' }, s.state), ' ', runBadge(s.runStatus), ' v' + s.version + ' · ',
      tokens(soFar(s)) + ' · ' + usd(soFar(s).costUsd) + ' · ' + soFar(s).turns + ' turns · updated ' + time(s.updatedAt)),
    runReason(s.runStatus),
    renderPending(d.pendingApprovals), renderActions(d),
    h('div', { class: 'charts' },
      h('div', { class: 'chart' }, h('div', { class: 'muted' }, 'session machine'), drawChart('session', S.machines.session, s.state)),
      h('div', { class: 'chart' }, h('div', { class: 'muted' }, 'run machine · ', h('span', { id: 'run-state' }, S.run ? S.run.state : 'no run')),
        drawChart('run', S.machines.run, S.run ? S.run.state : ''))),
    h('h2', {}, 'Runs'),
    h('ul', {}, d.runs.map(function (r) {
      return h('li', {}, h('a', { href: '#', 'data-run': r.runId, onclick: function (e) { e.preventDefault(); openRun(r.runId); } }, r.runId),
        ' ', h('span', { class: 'badge' }, r.state), r.status && r.status !== r.state ? [' ', h('span', { class: 'badge' + (r.status === 'crashed' ? ' error' : '') }, r.status)] : null,
        r.current ? ' (current)' : '', ' started ' + time(r.startedAt));
    })),
    S.run ? renderRun(S.run) : null,
    h('h2', {}, 'History (last ' + d.history.items.length + ' of ' + d.history.total + ')'),
    h('div', { id: 'history' }, d.history.items.map(function (item, i) {
      return h('div', { class: 'message' }, h('span', { class: 'muted' }, '#' + (d.history.from + i) + ' '), describeItem(item));
    })),
    h('details', {}, h('summary', {}, 'Session record (JSON)'), json(s)));
}
function openRun(runId) {
  var asked = ++S.asked;
  return api(sessionPath(shown()) + '/runs/' + encodeURIComponent(runId)).then(function (run) {
    if (asked !== S.asked) return;
    S.runId = runId; S.run = run; renderDetail();
  }).catch(function (error) { if (asked === S.asked) fail(error); });
}
function describeItem(item) {
  if (item.type === 'message') return item.role + ': ' + (typeof item.content === 'string' ? item.content : JSON.stringify(item.content));
  if (item.type === 'tool_call') return 'call ' + item.name + '(' + item.arguments + ')';
  if (item.type === 'tool_result') return 'result ' + item.name + ': ' + item.output;
  return item.type;
}

function renderPending(pending) {
  if (!pending.length) return null;
  return h('div', {}, h('h2', {}, 'Pending approvals'), pending.map(function (p) {
    return h('div', { class: 'pending', 'data-call': p.callId },
      h('b', {}, p.name), '(' + p.arguments + ') ', h('span', { class: 'muted' }, p.agentPath.join(' › ')),
      p.deadline ? h('span', { class: 'muted' }, ' deadline ' + time(p.deadline)) : null,
      h('div', { class: 'actions' },
        h('button', { class: 'primary', 'data-action': 'approve', onclick: function () { decide('approve', p); } }, 'Approve'),
        h('button', { class: 'danger', 'data-action': 'reject', onclick: function () { decide('reject', p); } }, 'Reject')));
  }));
}
function decide(action, p) { run(act(shown(), action, { callId: p.callId, runId: p.runId }), p.name + ' (' + p.callId + ')'); }
function run(promise, what) {
  return promise.then(function (result) { setStatus(result, what); return openSession(S.selected).then(function () { loadSessions(); }); }).catch(fail);
}
function setStatus(result, what) {
  S.result = describeResult(result, what);
  var el = document.getElementById('action-result');
  if (el) el.textContent = S.result;
}
/** An action's answer in words: a recorded decision, a run's outcome, a fork. */
function describeResult(r, what) {
  if (!r) return '';
  if (r.recorded) return (what || r.callId) + ' ' + r.decision + ' · ' + r.note;
  if (typeof r.interrupted === 'boolean') {
    if (r.interrupted) return 'run ' + r.runId + ' paused again (' + (r.interruptionReason || 'interrupted') + ')';
    var output = r.output === undefined ? '' : ': ' + (typeof r.output === 'string' ? r.output : JSON.stringify(r.output));
    return 'run ' + r.runId + ' completed' + output;
  }
  if (r.cancelled) return 'run cancelled';
  if (r.parentId) return 'forked ' + r.parentId + ' at history position ' + r.historyLength + ' into ' + r.sessionId;
  return JSON.stringify(r);
}

function renderActions(d) {
  // What the user typed outlives a re-render (a live refresh redraws the detail).
  var at = h('input', { id: 'fork-at', type: 'number', min: 0, placeholder: 'at (history position)', size: 8,
    value: S.forkAt, oninput: function () { S.forkAt = at.value; } });
  var newId = h('input', { id: 'fork-id', placeholder: 'new session id',
    value: S.forkId, oninput: function () { S.forkId = newId.value; } });
  return h('div', {},
    h('div', { class: 'actions' },
      S.info.recordOnly ? null : h('button', { 'data-action': 'resume', onclick: function () { run(act(shown(), 'resume')); } }, 'Resume'),
      h('button', { class: 'danger', 'data-action': 'cancel', onclick: function () { run(act(shown(), 'cancel')); } }, 'Cancel run'),
      newId, at,
      h('button', { 'data-action': 'fork', onclick: function () {
        var body = {};
        if (newId.value) body.newId = newId.value;
        if (at.value !== '') body.at = Number(at.value);
        act(shown(), 'fork', body).then(function (info) {
          S.forkId = ''; S.forkAt = ''; newId.value = ''; at.value = '';
          setStatus(info); loadSessions();
        }).catch(fail);
      } }, 'Fork'),
      h('button', { 'data-action': 'export', onclick: exportRun }, 'Export replay')),
    h('div', { class: 'muted', id: 'action-result' }, S.result));
}
function exportRun() {
  act(shown(), 'export', S.runId ? { runId: S.runId } : {}).then(function (file) {
    var text = JSON.stringify(file, null, 2);
    var link = h('a', { href: 'data:application/json;charset=utf-8,' + encodeURIComponent(text),
      download: shown() + '-' + (file.run ? file.run.runId : 'run') + '.replay.json', id: 'export-link' }, 'download replay');
    var out = clear(document.getElementById('action-result'));
    append(out, ['exported ' + text.length + ' bytes · ', link]);
    document.body.setAttribute('data-exported', text);
  }).catch(fail);
}

function renderRun(r) {
  return h('div', { id: 'run' },
    h('h2', {}, 'Run ' + r.runId + ' · ', h('span', { class: 'badge' }, r.state)),
    h('h2', {}, 'Timeline'), renderTree(r.tree),
    h('details', {}, h('summary', {}, 'Persisted snapshot (JSON)'), json(r.snapshot)),
    h('details', {}, h('summary', {}, 'RunState (JSON)'), json(r.runState)));
}
function renderTree(node) {
  var byRun = {};
  node.children.forEach(function (c) { byRun[c.runId] = c; });
  return h('div', { class: 'run-node', 'data-run': node.runId },
    h('div', {}, h('b', {}, node.agentPath.join(' › ')), ' ', h('span', { class: 'badge' }, node.state),
      node.held ? [' ', h('span', { class: 'badge held', title: 'its calls are decided and wait for a resume' },
        S.info.recordOnly ? 'decided: the run continues when the app resumes it' : 'decided: Resume runs it')] : null,
      node.usage ? ' ' + tokens(node.usage) + ' · ' + usd(node.usage.costUsd) : ''),
    (node.decisions || []).map(function (d) {
      return h('div', { class: 'decision', 'data-decision': d.decision }, 'decision on ' + d.name + ' (' + d.callId + '): ' + d.decision + (d.reason ? ' · ' + d.reason : ''));
    }),
    h('ul', { class: 'timeline' }, node.timeline.map(function (step) {
      var nested = step.model ? step.model.toolCalls.filter(function (c) { return c.subRunId && byRun[c.subRunId]; }) : [];
      return [renderStep(step), nested.map(function (c) { var child = byRun[c.subRunId]; delete byRun[c.subRunId]; return h('li', { class: 'subrun' }, renderTree(child)); })];
    }), Object.keys(byRun).map(function (id) { return h('li', { class: 'subrun' }, renderTree(byRun[id])); })));
}
function renderStep(step) {
  var head = [h('b', {}, '#' + step.step + ' ' + step.kind), ' ', h('span', { class: 'muted' }, time(step.startedAt || step.endedAt)),
    step.durationMs !== undefined ? ' · ' + dur(step.durationMs) : '',
    step.restarts ? h('span', { class: 'badge restart', title: 'in flight at a crash, ran again' }, ' restarted ' + step.restarts + '×') : null];
  var body = null;
  if (step.model) {
    body = h('div', {}, tokens(step.model.usage) + ' · ' + usd(step.model.usage.costUsd) + ' · latency ' + dur(step.durationMs),
      step.model.text ? h('div', { class: 'message' }, step.model.text) : null,
      step.model.toolCalls.map(function (c) { return h('div', { class: 'muted' }, '→ ' + c.name + '(' + c.arguments + ')' + (c.subRunId ? ' sub-agent run ' + c.subRunId : '')); }));
  } else if (step.tool) {
    body = h('div', {}, step.tool.name + '(' + (step.tool.arguments || '') + ') ',
      step.tool.isError ? h('span', { class: 'badge error' }, 'error') : null, h('div', { class: 'message' }, step.tool.output));
  } else if (step.approvals) {
    body = h('div', {}, step.approvals.map(function (a) { return h('div', {}, a.callId + ': ' + (a.needsApproval ? 'needs approval' : 'no approval needed')); }));
  } else if (step.guardrails) {
    body = h('div', {}, step.guardrails.map(function (g) { return h('div', {}, g.kind + ' guardrail ' + g.name + ': ' + (g.tripwire ? 'tripped' : 'passed')); }));
  }
  var changes = step.changes.length ? h('details', {}, h('summary', { class: 'muted' }, 'state before → after'),
    step.changes.map(function (c) { return h('div', { class: 'muted' }, c.field + ': ' + JSON.stringify(c.before) + ' → ' + JSON.stringify(c.after)); })) : null;
  return h('li', { class: step.kind + (step.tool && step.tool.isError ? ' failed' : ''), 'data-step': step.step }, head, body, changes);
}

Promise.all([api('/api/info'), api('/api/machines')]).then(function (r) {
  S.info = r[0]; S.machines = r[1]; S.user = S.info.userId || '';
  renderControls();
  startLive();
  return loadSessions();
}).catch(fail);
`;
