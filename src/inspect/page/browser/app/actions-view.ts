import { afterAction, setResult } from '../action-result.js';
import type { ActionResult, ReplayFile } from '../api-types.js';
import { append, byId, clear, h } from '../dom.js';
import { act } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { shown } from '../page-state.js';
import { datasetForm } from './dataset-form.js';

/**
 * The open session's actions, each only where it applies (`actionsFor`): Resume, Cancel run,
 * Fork (with a new id and a history position, both optional), Export replay and Add to dataset
 * (of a shown run), and the last result.
 */
export function renderActions(page: Page): HTMLDivElement {
  const { state, info } = page;
  // What the user typed outlives a re-render (a live refresh redraws the detail).
  const at = h('input', {
    id: 'fork-at',
    'aria-label': 'fork at history position',
    type: 'number',
    min: 0,
    placeholder: 'at (history position)',
    size: 8,
    value: state.forkAt,
    oninput: () => {
      state.forkAt = at.value;
    },
  });
  const newId = h('input', {
    id: 'fork-id',
    'aria-label': 'new session id of the fork',
    placeholder: 'new session id',
    value: state.forkId,
    oninput: () => {
      state.forkId = newId.value;
    },
  });
  const onSession = <T>(action: string, body?: Record<string, unknown>) =>
    act<T>(state.user, shown(state), action, body);
  const fork = async () => {
    const body: { newId?: string; at?: number } = {};
    if (newId.value) body.newId = newId.value;
    if (at.value !== '') body.at = Number(at.value);
    try {
      const info = await onSession<ActionResult>('fork', body);
      state.forkId = '';
      state.forkAt = '';
      newId.value = '';
      at.value = '';
      setResult(page, info);
      void page.loadSessions();
    } catch (error) {
      fail(state, error);
    }
  };
  const status = state.detail?.session.runStatus?.status;
  const applies = actionsFor(status, info.recordOnly);
  return h(
    'div',
    {},
    h(
      'div',
      { class: 'actions', role: 'group', 'aria-label': 'session actions' },
      !applies.resume
        ? null
        : h(
            'button',
            {
              'data-action': 'resume',
              onclick: () => void afterAction(page, onSession<ActionResult>('resume')),
            },
            'Resume',
          ),
      !applies.cancel
        ? null
        : h(
            'button',
            {
              class: 'danger',
              'data-action': 'cancel',
              onclick: () => void afterAction(page, onSession<ActionResult>('cancel')),
            },
            'Cancel run',
          ),
      newId,
      at,
      h('button', { 'data-action': 'fork', onclick: () => void fork() }, 'Fork'),
      state.runId === null
        ? null
        : h(
            'button',
            { 'data-action': 'export', onclick: () => void exportRun(page) },
            'Export replay',
          ),
    ),
    applies.resume || applies.cancel
      ? null
      : h(
          'p',
          { class: 'muted hint', id: 'no-run-actions' },
          status === undefined
            ? 'No run yet: nothing to resume or cancel.'
            : `The last run ${status}: nothing to resume or cancel (a new message starts a new run).`,
        ),
    state.runId === null ? null : datasetForm(page),
    h('div', { class: 'muted', id: 'action-result' }, state.result),
  );
}

/**
 * Which run actions apply to a run of this status: Resume to a run that stands still
 * (paused, waiting for decisions, or crashed) when an agent of the app runs here; Cancel to a
 * run that has not ended, a running one too (in this process or, on PostgreSQL, another). Neither to a session without a run or whose last run ended.
 */
export function actionsFor(
  status: string | undefined,
  recordOnly: boolean,
): { resume: boolean; cancel: boolean } {
  const stands = status === 'interrupted' || status === 'awaitingApproval' || status === 'crashed';
  return { resume: stands && !recordOnly, cancel: stands || status === 'running' };
}

/** Exports the shown run's replay file: a download link, and the file in `body[data-exported]`. */
async function exportRun(page: Page): Promise<void> {
  const { state } = page;
  const session = shown(state);
  try {
    const file = await act<ReplayFile>(
      state.user,
      session,
      'export',
      state.runId ? { runId: state.runId } : {},
    );
    const text = JSON.stringify(file, null, 2);
    const link = h(
      'a',
      {
        href: `data:application/json;charset=utf-8,${encodeURIComponent(text)}`,
        download: `${session}-${file.run ? file.run.runId : 'run'}.replay.json`,
        id: 'export-link',
      },
      'download replay',
    );
    const out = clear(byId('action-result'));
    append(out, [`exported ${text.length} bytes · `, link]);
    document.body.setAttribute('data-exported', text);
  } catch (error) {
    fail(state, error);
  }
}
