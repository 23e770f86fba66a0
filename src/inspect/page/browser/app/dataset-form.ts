import type { DatasetAdded } from '../eval-api-types.js';
import { h } from '../dom.js';
import { act } from '../inspector-api.js';
import type { Page } from '../page.js';
import { fail } from '../page-error.js';
import { shown } from '../page-state.js';

/**
 * "Add to dataset" on the open session (when the inspector has a datasets folder): the
 * dataset's name, the whole run or each model step, and the button that appends the rows
 * built from the shown run; what was added goes to the action result.
 */
export function datasetForm(page: Page): HTMLElement | null {
  const { state, info } = page;
  if (!info.datasets) return null;
  const name = h('input', {
    id: 'dataset-name',
    'aria-label': 'dataset name',
    placeholder: 'dataset name',
    size: 14,
  });
  const steps = h(
    'select',
    { id: 'dataset-steps', 'aria-label': 'rows to add' },
    h('option', { value: 'run' }, 'the whole run'),
    h('option', { value: 'model-steps' }, 'each model step'),
  );
  const add = async () => {
    if (!name.value.trim()) {
      fail(state, 'Give the dataset a name');
      return;
    }
    try {
      const added = await act<DatasetAdded>(state.user, shown(state), 'dataset', {
        dataset: name.value.trim(),
        steps: steps.value,
        ...(state.runId ? { runId: state.runId } : {}),
      });
      state.result = `added ${added.added.length} ${added.kind} row(s) to ${added.dataset}: ${added.added.join(', ')}`;
      const el = document.getElementById('action-result');
      if (el) el.textContent = state.result;
    } catch (error) {
      fail(state, error);
    }
  };
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'add to dataset', id: 'dataset-form' },
    name,
    steps,
    h('button', { 'data-action': 'dataset', onclick: () => void add() }, 'Add to dataset'),
  );
}
