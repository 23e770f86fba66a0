import { clear, h } from '../dom.js';
import { act, api, sessionPath } from '../inspector-api.js';
import type { Page } from '../page.js';
import { shown } from '../page-state.js';

/** One item of a history, with its position. */
interface Placed {
  position: number;
  item: { type: string; [k: string]: unknown };
}

/** `/api/sessions/<id>/runs/<runId>/steps` (see `src/inspect/time-travel.ts`). */
interface StepFrame {
  step: number;
  kind: string;
  label: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  changed: string[];
  added: Placed[];
  forkAt: number;
}

/** `/api/sessions/<id>/origin`. */
interface ForkOrigin {
  parentId: string;
  missing?: boolean;
  shared?: number;
  parentLength?: number;
  length?: number;
  onlyHere?: Placed[];
  onlyParent?: Placed[];
}

/** An item in one line. */
function itemText(p: Placed): string {
  const i = p.item;
  const text =
    i.type === 'message'
      ? `${String(i['role'])}: ${typeof i['content'] === 'string' ? i['content'] : JSON.stringify(i['content'])}`
      : i.type === 'tool_call'
        ? `call ${String(i['name'])}(${String(i['arguments'])})`
        : i.type === 'tool_result'
          ? `result ${String(i['output'])}`
          : JSON.stringify(i);
  return `#${p.position} ${text}`;
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * Time travel through the run: one step at a time (Previous / Next, or the left and right
 * arrow keys while a control of the step has the focus), the run's context before and after it (rebuilt from the journal by the server),
 * the items it added, and a fork of the session from there.
 */
export function renderTimeTravel(page: Page, runId: string): HTMLDivElement {
  const box = h('div', { id: 'time-travel', 'aria-live': 'polite' });
  const sessionId = shown(page.state);
  api<{ frames: StepFrame[] }>(
    page.state.user,
    `${sessionPath(sessionId)}/runs/${encodeURIComponent(runId)}/steps`,
  ).then(
    ({ frames }) => {
      if (frames.length === 0) {
        clear(box).append(h('p', { class: 'muted' }, 'No journaled step yet.'));
        return;
      }
      let at = 0;
      const draw = () => {
        const go = (i: number) => {
          const back = i < at;
          at = Math.max(0, Math.min(frames.length - 1, i));
          draw();
          // Keep the focus in the step (on the other button at either end).
          const [prev, next] = ['#tt-prev', '#tt-next'].map((s) =>
            box.querySelector<HTMLButtonElement>(s),
          );
          const wanted = back ? prev : next;
          (wanted?.disabled ? (back ? next : prev) : wanted)?.focus();
        };
        clear(box).append(frameView(page, sessionId, frames, at, go));
      };
      draw();
    },
    (error: unknown) => clear(box).append(h('p', { class: 'error-box' }, String(error))),
  );
  return h('div', {}, h('h2', {}, 'Time travel'), box);
}

function frameView(
  page: Page,
  sessionId: string,
  frames: StepFrame[],
  at: number,
  go: (index: number) => void,
): HTMLDivElement {
  const f = frames[at]!;
  const fields = [...new Set([...Object.keys(f.before), ...Object.keys(f.after)])];
  const newId = h('input', {
    id: 'tt-fork-id',
    placeholder: 'new session id (optional)',
    'aria-label': 'New session id for the fork',
  });
  const fork = async () => {
    try {
      const info = await act<{ sessionId: string }>(page.state.user, sessionId, 'fork', {
        at: f.forkAt,
        ...(newId.value ? { newId: newId.value } : {}),
      });
      await page.loadSessions();
      await page.openSession(info.sessionId);
    } catch (error) {
      box.append(h('p', { class: 'error-box', role: 'alert' }, String(error)));
    }
  };
  const box = h(
    'div',
    {
      class: 'tt-frame',
      'data-step': f.step,
      onkeydown: (e: Event) => {
        const key = (e as KeyboardEvent).key;
        if (key === 'ArrowLeft' && at > 0) go(at - 1);
        if (key === 'ArrowRight' && at < frames.length - 1) go(at + 1);
      },
    },
    h(
      'div',
      { class: 'actions' },
      h('button', { id: 'tt-prev', disabled: at === 0, onclick: () => go(at - 1) }, '◀ Previous'),
      h('span', { id: 'tt-pos' }, `step ${at + 1} of ${frames.length}: #${f.step} ${f.label}`),
      h(
        'button',
        { id: 'tt-next', disabled: at === frames.length - 1, onclick: () => go(at + 1) },
        'Next ▶',
      ),
    ),
    h(
      'table',
      { class: 'tt-context' },
      h('caption', { class: 'muted' }, 'The run’s context before and after this step'),
      h('tr', {}, h('th', {}, 'field'), h('th', {}, 'before'), h('th', {}, 'after')),
      fields.map((k) =>
        h(
          'tr',
          { class: f.changed.includes(k) ? 'changed' : '', 'data-field': k },
          h('td', {}, k),
          h('td', {}, show(f.before[k])),
          h('td', {}, show(f.after[k])),
        ),
      ),
    ),
    f.added.length
      ? [
          h('div', { class: 'muted' }, 'Items this step added to the history'),
          h(
            'ul',
            { class: 'tt-added' },
            f.added.map((p) => h('li', {}, itemText(p))),
          ),
        ]
      : null,
    h(
      'div',
      { class: 'actions' },
      newId,
      h(
        'button',
        { id: 'tt-fork', onclick: () => void fork() },
        `Fork from here (history up to #${f.forkAt})`,
      ),
    ),
  );
  return box;
}

/** A forked session's origin: its parent (a link) and the diff of the two histories. */
export function renderOrigin(page: Page, sessionId: string): HTMLDivElement {
  const box = h('div', { id: 'origin', class: 'pending' }, 'Reading where this fork came from…');
  api<{ origin: ForkOrigin | null }>(page.state.user, `${sessionPath(sessionId)}/origin`).then(
    ({ origin }) => {
      clear(box);
      if (!origin) return box.remove();
      const parent = h(
        'a',
        {
          href: '#',
          id: 'origin-parent',
          onclick: (e: Event) => {
            e.preventDefault();
            void page.openSession(origin.parentId);
          },
        },
        origin.parentId,
      );
      if (origin.missing) {
        box.append('Forked from ', parent, ' (no longer readable)');
        return;
      }
      box.append(
        h(
          'div',
          {},
          'Forked from ',
          parent,
          ` at history position ${origin.shared}: ${origin.shared} items shared; since then ${(origin.length ?? 0) - (origin.shared ?? 0)} here, ${(origin.parentLength ?? 0) - (origin.shared ?? 0)} in the parent`,
        ),
        h(
          'div',
          { class: 'origin-diff' },
          h(
            'div',
            {},
            h('b', {}, 'Only here'),
            h(
              'ul',
              { class: 'only-here' },
              (origin.onlyHere ?? []).map((p) => h('li', {}, `+ ${itemText(p)}`)),
            ),
          ),
          h(
            'div',
            {},
            h('b', {}, 'Only in the parent'),
            h(
              'ul',
              { class: 'only-parent' },
              (origin.onlyParent ?? []).map((p) => h('li', {}, `− ${itemText(p)}`)),
            ),
          ),
        ),
      );
    },
    (error: unknown) => clear(box).append(h('span', { class: 'error-box' }, String(error))),
  );
  return box;
}
