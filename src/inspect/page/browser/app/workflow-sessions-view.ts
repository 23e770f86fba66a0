import type { PendingApproval } from '../api-types.js';
import type { NestedSession, WorkflowDetail } from '../workflow-api-types.js';
import { h, type Child } from '../dom.js';
import { post, workflowPath as workflowApiPath } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';

/** The agent sessions, each under the state that invoked it, with the calls they wait on. */
export function nestedSessions(page: Page, w: WorkflowDetail): Child {
  if (!w.sessions.length) return h('p', { class: 'muted' }, 'None.');
  const states = [...new Set(w.sessions.map((s) => s.state))];
  return states.map((statePath) =>
    h(
      'div',
      { class: 'nested', 'data-state': statePath },
      h('div', { class: 'chart-head' }, 'in state ', h('b', {}, statePath || '(unknown)')),
      h(
        'ul',
        {},
        w.sessions.filter((s) => s.state === statePath).map((s) => nestedSession(page, w, s)),
      ),
    ),
  );
}

function nestedSession(page: Page, w: WorkflowDetail, s: NestedSession): HTMLLIElement {
  return h(
    'li',
    { class: 'nested-session', 'data-session': s.sessionId, 'data-actor': s.actorId },
    h(
      'a',
      {
        href: `#session=${encodeURIComponent(s.sessionId)}`,
        class: 'session-link',
        'data-session': s.sessionId,
        onclick: (e) => {
          e.preventDefault();
          page.state.workflowId = null;
          void page.openSession(s.sessionId);
        },
      },
      s.sessionId,
    ),
    ' ',
    h('span', { class: 'badge' }, s.status ?? 'gone'),
    s.runState ? [' ', h('span', { class: 'badge' }, s.runState)] : null,
    s.pendingApprovals.map((p) => pending(page, w, p)),
  );
}

/** A call the nested agent waits on, with Approve and Reject through the workflow's host. */
function pending(page: Page, w: WorkflowDetail, p: PendingApproval): HTMLElement {
  const message = h('input', {
    class: 'reject-message',
    'aria-label': `why ${p.name} is rejected (the model reads it)`,
    placeholder: 'reason to reject (optional)',
    maxlength: 2000,
  });
  const decide = (action: 'approve' | 'reject') => {
    const reason = message.value.trim();
    void afterDecision(
      page,
      w.workflow.id,
      post<{ decision: string }>(page.state.user, `${workflowApiPath(w.workflow.id)}/${action}`, {
        callId: p.callId,
        ...(action === 'reject' && reason ? { message: reason } : {}),
      }),
      p,
    );
  };
  return h(
    'div',
    { class: 'pending', 'data-call': p.callId },
    h('b', {}, p.name),
    `(${p.arguments}) `,
    h('span', { class: 'muted' }, p.agentPath.join(' › ')),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { class: 'primary', 'data-action': 'approve', onclick: () => decide('approve') },
        'Approve',
      ),
      h(
        'button',
        { class: 'danger', 'data-action': 'reject', onclick: () => decide('reject') },
        'Reject',
      ),
      message,
    ),
  );
}

/** Waits for a decision, says it, then reads the instance and the list again. */
async function afterDecision(
  page: Page,
  id: string,
  answer: Promise<{ decision: string }>,
  p: PendingApproval,
): Promise<void> {
  try {
    const result = await answer;
    page.state.result = `${p.name} (${p.callId}) ${result.decision}`;
    const shown = document.getElementById('action-result');
    if (shown) shown.textContent = page.state.result;
    await page.openWorkflow(id);
    await page.loadWorkflows();
  } catch (error) {
    fail(page.state, error);
  }
}

/** The child workflows it invoked (hosted machines), each under its state, a link to open it. */
export function nestedWorkflows(page: Page, w: WorkflowDetail): Child {
  if (!w.children.length) return null;
  return h(
    'ul',
    { id: 'workflow-children' },
    w.children.map((c) =>
      h(
        'li',
        { class: 'nested-workflow', 'data-state': c.state, 'data-workflow': c.workflowId },
        'in state ',
        h('b', {}, c.state || '(unknown)'),
        ': child workflow ',
        h(
          'a',
          {
            href: `#workflow=${encodeURIComponent(c.workflowId)}`,
            class: 'workflow-link',
            onclick: (e) => {
              e.preventDefault();
              void page.openWorkflow(c.workflowId);
            },
          },
          c.workflowId,
        ),
      ),
    ),
  );
}
