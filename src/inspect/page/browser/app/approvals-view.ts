import { afterAction } from '../action-result.js';
import type { ActionResult, PendingApproval } from '../api-types.js';
import { h } from '../dom.js';
import { time } from '../format.js';
import { act } from '../inspector-api.js';
import type { Page } from '../page.js';
import { shown } from '../page-state.js';

/** The calls waiting for a decision, each with Approve and Reject; nothing when none waits. */
export function renderPending(page: Page, pending: PendingApproval[]): HTMLDivElement | null {
  if (!pending.length) return null;
  return h(
    'div',
    {},
    h('h2', {}, 'Pending approvals'),
    pending.map((p) => {
      const message = h('input', {
        class: 'reject-message',
        'aria-label': `why ${p.name} is rejected (the model reads it)`,
        placeholder: 'reason to reject (optional)',
        maxlength: 2000,
      });
      return h(
        'div',
        { class: 'pending', 'data-call': p.callId },
        h('b', {}, p.name),
        `(${p.arguments}) `,
        h('span', { class: 'muted' }, p.agentPath.join(' › ')),
        p.deadline ? h('span', { class: 'muted' }, ` deadline ${time(p.deadline)}`) : null,
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              class: 'primary',
              'data-action': 'approve',
              onclick: () => void decide(page, 'approve', p),
            },
            'Approve',
          ),
          h(
            'button',
            {
              class: 'danger',
              'data-action': 'reject',
              onclick: () => void decide(page, 'reject', p, message.value.trim()),
            },
            'Reject',
          ),
          message,
        ),
      );
    }),
  );
}

/** Approves or rejects one pending call (of the run that holds it), a rejection with its reason. */
function decide(
  page: Page,
  action: 'approve' | 'reject',
  p: PendingApproval,
  message = '',
): Promise<void> {
  const { state } = page;
  const answer = act<ActionResult>(state.user, shown(state), action, {
    callId: p.callId,
    runId: p.runId,
    ...(message ? { message } : {}),
  });
  return afterAction(page, answer, `${p.name} (${p.callId})`);
}
