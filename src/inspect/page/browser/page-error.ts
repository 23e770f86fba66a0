import type { PageState } from './page-state.js';

/** Shows an error in the controls' error box (and keeps it for the next render of the controls). */
export function fail(state: PageState, error: unknown): void {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  state.error = String(message ? message : error);
  const box = document.getElementById('error');
  if (box) box.textContent = state.error;
}
