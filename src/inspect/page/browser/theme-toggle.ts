import { h } from './dom.js';

/** The themes the toggle goes through: the system's (`prefers-color-scheme`), light, dark. */
const THEMES = ['system', 'light', 'dark'] as const;

/**
 * The theme toggle: it sets `data-theme` on the document (the style sheet's light and dark
 * colours, `page-theme.ts`); `system` leaves it to the browser's `prefers-color-scheme`.
 * The choice lasts as long as the page (nothing is stored).
 */
export function themeToggle(): HTMLButtonElement {
  const root = document.documentElement;
  const current = () =>
    (root.getAttribute('data-theme') as (typeof THEMES)[number] | null) ?? 'system';
  const label = () => `theme: ${current()}`;
  const button = h(
    'button',
    {
      type: 'button',
      id: 'theme-toggle',
      title: 'switch the colour theme (system, light, dark)',
      onclick: () => {
        const next = THEMES[(THEMES.indexOf(current()) + 1) % THEMES.length]!;
        if (next === 'system') root.removeAttribute('data-theme');
        else root.setAttribute('data-theme', next);
        button.textContent = label();
      },
    },
    label(),
  );
  return button;
}
