import { afterAction } from '../action-result.js';
import type { ActionResult, InDoubtCall, RunStatus } from '../api-types.js';
import { h } from '../dom.js';
import { act } from '../inspector-api.js';
import type { Page } from '../page.js';
import { shown } from '../page-state.js';
import { fail } from '../page-error.js';

/**
 * The calls in doubt the run waits on (cut off by a crash, their tool asks an operator), each
 * with Retry, Fail and Record result (the result as JSON); nothing when none waits.
 */
export function renderInDoubt(page: Page, rs: RunStatus | undefined): HTMLDivElement | null {
  const calls = rs?.callsInDoubt ?? [];
  if (!calls.length) return null;
  return h(
    'div',
    {},
    h('h2', {}, 'Calls in doubt'),
    h('p', { class: 'muted' }, 'Cut off by a crash: their effect may or may not have happened.'),
    calls.map((c) => {
      const result = h('input', {
        class: 'in-doubt-result',
        'aria-label': `the result of ${c.toolName} (JSON)`,
        placeholder: 'result as JSON, e.g. {"charge":"ch_1"}',
        maxlength: 20000,
      });
      return h(
        'div',
        { class: 'pending in-doubt', 'data-call': c.callId },
        h('b', {}, c.toolName),
        `(${JSON.stringify(c.arguments)}) `,
        h('span', { class: 'muted' }, (c.agentPath ?? [c.agent]).join(' › ')),
        c.reconcile ? h('span', { class: 'muted' }, ` reconcile: ${c.reconcile}`) : null,
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            { 'data-action': 'in-doubt-retry', onclick: () => void resolve(page, c, 'retry') },
            'Retry',
          ),
          h(
            'button',
            {
              class: 'danger',
              'data-action': 'in-doubt-fail',
              onclick: () => void resolve(page, c, 'fail'),
            },
            'Fail',
          ),
          h(
            'button',
            {
              class: 'primary',
              'data-action': 'in-doubt-result',
              onclick: () => void recordResult(page, c, result.value),
            },
            'Record result',
          ),
          result,
        ),
      );
    }),
  );
}

/** The operator's result, parsed as JSON (an error in the page's error box when it is not). */
function recordResult(page: Page, c: InDoubtCall, text: string): Promise<void> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail(page.state, new Error(`The result of ${c.toolName} must be JSON`));
    return Promise.resolve();
  }
  return resolve(page, c, 'result', value);
}

/** Resolves one call in doubt (of the run that waits on it). */
function resolve(
  page: Page,
  c: InDoubtCall,
  action: 'retry' | 'result' | 'fail',
  result?: unknown,
): Promise<void> {
  const { state } = page;
  const answer = act<ActionResult>(state.user, shown(state), 'resolve-in-doubt', {
    callId: c.callId,
    runId: c.runId,
    action,
    ...(action === 'result' ? { result } : {}),
  });
  return afterAction(page, answer, `${c.toolName} (${c.callId})`);
}
