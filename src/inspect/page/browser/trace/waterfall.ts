import { h, clear, type Child } from '../dom.js';
import { dur, time, usd } from '../format.js';
import { api, sessionPath } from '../inspector-api.js';
import { showModelRequest } from './model-request-view.js';
import type { Page } from '../page.js';
import { shown } from '../page-state.js';

/** One bar of `/api/sessions/<id>/runs/<runId>/waterfall` (see `src/inspect/run-waterfall.ts`). */
export interface WaterfallBar {
  id: string;
  runId: string;
  depth: number;
  kind: string;
  label: string;
  step?: number;
  start: number;
  end: number;
  open?: boolean;
  retryFrom?: number;
  restarts?: number;
  retries?: number;
  error?: string;
  rejected?: boolean;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

export interface Waterfall {
  start: number;
  end: number;
  bars: WaterfallBar[];
}

/**
 * The run's waterfall, read once the run is drawn: a box that fills when the answer comes. A
 * model bar opens what that model call was sent (below the waterfall).
 */
export function renderWaterfall(page: Page, runId: string): HTMLDivElement {
  const box = h(
    'div',
    { id: 'waterfall', 'aria-busy': 'true' },
    h('p', { class: 'muted' }, 'Reading the waterfall…'),
  );
  const detail = h('div', { id: 'model-request' });
  const sessionId = shown(page.state);
  api<Waterfall>(
    page.state.user,
    `${sessionPath(sessionId)}/runs/${encodeURIComponent(runId)}/waterfall`,
  ).then(
    (w) => {
      clear(box).removeAttribute('aria-busy');
      box.append(drawWaterfall(w, (bar) => void showModelRequest(page, sessionId, bar, detail)));
    },
    (error: unknown) => {
      clear(box).removeAttribute('aria-busy');
      box.append(h('p', { class: 'error-box' }, `Waterfall: ${String(error)}`));
    },
  );
  return h('div', {}, h('h2', {}, 'Waterfall'), box, detail);
}

/** Where `at` falls on the axis, in percent. */
const pct = (w: Waterfall, at: number) =>
  w.end > w.start ? ((at - w.start) / (w.end - w.start)) * 100 : 0;

/** Each bar on its row: its label (indented by depth), then the bar placed to scale on the axis. */
export function drawWaterfall(w: Waterfall, open: (bar: WaterfallBar) => void): HTMLDivElement {
  return h(
    'div',
    { class: 'wf', role: 'list', 'aria-label': 'Steps on a time axis' },
    h(
      'div',
      { class: 'wf-row wf-axis' },
      h('span', { class: 'wf-label' }, time(w.start)),
      h('span', { class: 'wf-track' }, `${dur(w.end - w.start)} in all`),
    ),
    w.bars.map((bar) => row(w, bar, open)),
  );
}

function row(w: Waterfall, bar: WaterfallBar, open: (bar: WaterfallBar) => void): HTMLDivElement {
  const facts = factsOf(bar);
  const place = (el: HTMLElement, from: number, to: number) => {
    el.style.left = `${pct(w, from)}%`;
    el.style.width = `${Math.max(pct(w, to) - pct(w, from), 0)}%`;
    return el;
  };
  const classes = [
    'wf-bar',
    `wf-${bar.kind}`,
    bar.error ? 'wf-error' : '',
    bar.rejected ? 'wf-rejected' : '',
    bar.open ? 'wf-open' : '',
  ].join(' ');
  const title = `${bar.label}: ${facts}${bar.error ? ` · error: ${bar.error}` : ''}${bar.rejected ? ' · rejected: it did not run' : ''}`;
  const barEl = place(
    bar.kind === 'model' && bar.step !== undefined
      ? h('button', {
          class: classes,
          title,
          'aria-label': `${title} (show what the model saw)`,
          onclick: () => open(bar),
        })
      : h('span', { class: classes, title }),
    bar.start,
    bar.end,
  );
  barEl.setAttribute('data-ms', String(bar.end - bar.start));
  const marks: Child[] = [
    bar.retries
      ? h(
          'span',
          { class: 'badge wf-retry', title: 'failed and tried again' },
          `retried ${bar.retries}×`,
        )
      : null,
    bar.restarts
      ? h(
          'span',
          { class: 'badge restart', title: 'in flight at a crash, ran again' },
          `restarted ${bar.restarts}×`,
        )
      : null,
    bar.error ? h('span', { class: 'badge error wf-reason' }, bar.error) : null,
    bar.rejected
      ? h(
          'span',
          { class: 'badge wf-rejected-mark', title: 'rejected: it did not run' },
          'rejected',
        )
      : null,
  ];
  return h(
    'div',
    {
      class: `wf-row wf-row-${bar.kind}`,
      role: 'listitem',
      'data-bar': bar.id,
      'data-kind': bar.kind,
      'data-depth': bar.depth,
      ...(bar.step === undefined ? {} : { 'data-step': bar.step }),
    },
    indent(h('span', { class: 'wf-label', title: bar.label }, bar.label), bar.depth),
    h(
      'span',
      { class: 'wf-track' },
      bar.retryFrom === undefined
        ? null
        : place(
            h('span', {
              class: 'wf-wait-retry',
              title: 'the failed attempt, then the wait until it was tried again',
            }),
            bar.retryFrom,
            bar.start,
          ),
      barEl,
    ),
    h('span', { class: 'wf-facts' }, facts, ' ', marks),
  );
}

function indent(el: HTMLElement, depth: number): HTMLElement {
  el.style.paddingLeft = `${depth * 14}px`;
  return el;
}

/** Duration, tokens and cost of a bar, as its row shows them. */
function factsOf(bar: WaterfallBar): string {
  const parts = [dur(bar.end - bar.start) + (bar.open ? ' so far' : '')];
  if (bar.inputTokens !== undefined) {
    parts.push(`${bar.inputTokens} in / ${bar.outputTokens ?? 0} out`, usd(bar.costUsd));
  }
  return parts.join(' · ');
}
