import { clear, h, type Child } from '../dom.js';
import { json, time, tokens, usd } from '../format.js';
import { api, sessionPath } from '../inspector-api.js';
import type { Page } from '../page.js';
import type { WaterfallBar } from './waterfall.js';

/** `/api/sessions/<id>/runs/<runId>/steps/<n>/request` (see `src/inspect/model-requests.ts`). */
interface ModelRequestView {
  runId: string;
  step: number;
  recorded: boolean;
  agent?: string;
  instructions?: string;
  source?:
    | {
        kind: 'history';
        start: number;
        end: number;
        from: number;
        summary?: number;
        pinned?: number;
        historyLength: number;
      }
    | { kind: 'sub-run' };
  items?: {
    position?: number;
    role?: 'summary' | 'pinned' | 'memory';
    item: { type: string; [k: string]: unknown };
  }[];
  /** What memory across sessions added (see `RequestMemoryFacts`). */
  memory?: {
    recalled?: {
      id: string;
      score: number;
      kind: string;
      text: string;
      sessionId?: string;
      resource?: string;
      at: number;
    }[];
    recalledAt?: number;
    workingMemory?: { version: number };
    embedding?: { model: string; inputTokens: number; costUsd?: number };
  };
  tools?: { name: string; description?: string; parameters?: unknown }[];
  settings?: Record<string, unknown>;
  answer: {
    text?: string;
    toolCalls: { callId: string; name: string; arguments: string }[];
    usage: { inputTokens: number; outputTokens: number; costUsd?: number };
  };
}

/** Reads what model step `bar.step` was sent and shows it in `box` (replacing what was there). */
export async function showModelRequest(
  page: Page,
  sessionId: string,
  bar: WaterfallBar,
  box: HTMLElement,
): Promise<void> {
  clear(box).append(h('p', { class: 'muted' }, `Reading step ${bar.step ?? ''}…`));
  try {
    const view = await api<ModelRequestView>(
      page.state.user,
      `${sessionPath(sessionId)}/runs/${encodeURIComponent(bar.runId)}/steps/${bar.step ?? 0}/request`,
    );
    clear(box).append(renderModelRequest(page, view));
  } catch (error) {
    clear(box).append(h('p', { class: 'error-box' }, String(error)));
  }
}

/** The request as sent (items after the context window, tools, settings) and the raw answer. */
function renderModelRequest(page: Page, v: ModelRequestView): HTMLElement {
  const head = h('h3', {}, `What the model saw · step ${v.step}${v.agent ? ` · ${v.agent}` : ''}`);
  const answer = h(
    'div',
    {},
    h('h4', {}, 'Answer (as journaled)'),
    json(v.answer),
    h('div', { class: 'muted' }, `${tokens(v.answer.usage)} · ${usd(v.answer.usage.costUsd)}`),
  );
  if (!v.recorded) {
    return h(
      'div',
      { class: 'model-request', 'data-recorded': 'false' },
      head,
      h(
        'p',
        { class: 'muted not-recorded' },
        'Request not recorded: this step was journaled before agentstate recorded what each model call was sent.',
      ),
      answer,
    );
  }
  return h(
    'div',
    { class: 'model-request', 'data-recorded': 'true' },
    head,
    h('p', { class: 'window-kept' }, windowKept(v)),
    h('h4', {}, 'System instructions (as sent)'),
    v.instructions === undefined
      ? h(
          'p',
          { class: 'muted sent-instructions', 'data-none': 'true' },
          'none recorded: none were sent, or the step was journaled before agentstate recorded them',
        )
      : h('pre', { class: 'sent-instructions' }, v.instructions),
    v.memory ? renderMemoryFacts(page, v.memory) : null,
    h('h4', {}, 'Settings'),
    json(v.settings ?? {}),
    h('h4', {}, `Items sent (${v.items?.length ?? 0})`),
    h(
      'ol',
      { class: 'sent-items' },
      (v.items ?? []).map((s) => itemRow(s)),
    ),
    h('h4', {}, `Tools offered (${v.tools?.length ?? 0})`),
    h(
      'ul',
      { class: 'sent-tools' },
      (v.tools ?? []).map((t) =>
        h(
          'li',
          { 'data-tool': t.name },
          h('b', {}, t.name),
          t.description ? ` — ${t.description}` : '',
          t.parameters === undefined
            ? h(
                'div',
                { class: 'muted' },
                'parameter schema not available here (start the inspector with `agents`)',
              )
            : json(t.parameters),
        ),
      ),
    ),
    answer,
  );
}

/**
 * What memory across sessions added to the request: the memories recalled into it (best first,
 * with their scores, kind, source session and time; their message is among the items, marked),
 * the working memory's version the instructions showed, and what embedding the query cost.
 */
function renderMemoryFacts(page: Page, m: NonNullable<ModelRequestView['memory']>): HTMLElement {
  const recalled = m.recalled ?? [];
  const facts = [
    m.workingMemory ? `working memory version ${m.workingMemory.version} in the instructions` : '',
    m.embedding
      ? `embedding: ${m.embedding.inputTokens} tokens (${m.embedding.model}, ${usd(m.embedding.costUsd)})`
      : '',
  ].filter(Boolean);
  return h(
    'div',
    { class: 'request-memory' },
    h('h4', {}, `Memories recalled (${recalled.length})`),
    recalled.length
      ? h(
          'table',
          { class: 'recalled' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Score', 'Text', 'Kind', 'Source session', 'Time'].map((t) => h('th', {}, t)),
            ),
          ),
          h(
            'tbody',
            {},
            recalled.map((r) =>
              h(
                'tr',
                { class: 'recalled-memory', 'data-memory': r.id },
                h('td', { class: 'recalled-score' }, r.score.toFixed(3)),
                h('td', { class: 'recalled-text' }, r.text),
                h('td', {}, r.resource ? `${r.kind} · ${r.resource}` : r.kind),
                h(
                  'td',
                  {},
                  r.sessionId === undefined
                    ? h('span', { class: 'muted' }, 'saved by the app')
                    : h(
                        'a',
                        {
                          href: '#',
                          class: 'recalled-session',
                          'data-session': r.sessionId,
                          onclick: (e) => {
                            e.preventDefault();
                            void page.openSession(r.sessionId!);
                          },
                        },
                        r.sessionId,
                      ),
                ),
                h('td', {}, time(r.at)),
              ),
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'none: no memory of the user scored enough'),
    facts.length ? h('p', { class: 'muted' }, facts.join(' · ')) : null,
  );
}

/**
 * What the context window kept, in words, from the journaled window: "The context window kept
 * the last 4 of 11 history items (#7–#10); 7 older left out."
 */
function windowKept(v: ModelRequestView): string {
  const source = v.source;
  if (source?.kind !== 'history') {
    return 'A sub-agent run: the model read its own conversation (its input and its earlier steps), not the session history.';
  }
  const { start, end, from, summary, pinned } = source;
  const total = end - from;
  const kept = (v.items ?? []).filter((s) => s.role === undefined).length;
  const range = end > start ? ` (#${start}–#${end - 1})` : '';
  const words = [
    start === from
      ? `The context window kept all ${total} history items${range}`
      : `The context window kept the last ${kept} of ${total} history items${range}`,
  ];
  const left = start - from - (pinned === undefined ? 0 : 1);
  if (summary !== undefined) words.push(`older ones sent as the summary at #${summary}`);
  else if (left > 0) words.push(`${left} older left out`);
  if (pinned !== undefined) words.push(`the newest user message (#${pinned}) pinned in front`);
  if (from > 0) words.push(`the ${from} items before the last clear not read`);
  return `${words.join('; ')}.`;
}

function itemRow(s: NonNullable<ModelRequestView['items']>[number]): HTMLLIElement {
  const { item } = s;
  const marker: Child =
    s.role === 'summary'
      ? h('span', { class: 'badge' }, 'summary')
      : s.role === 'pinned'
        ? h(
            'span',
            { class: 'badge', title: 'the newest user message, kept in front of the window' },
            'pinned',
          )
        : s.role === 'memory'
          ? h(
              'span',
              { class: 'badge', title: 'memories recalled from other sessions of the user' },
              'recalled memories',
            )
          : null;
  const what =
    item.type === 'message'
      ? `${String(item['role'])}: ${typeof item['content'] === 'string' ? item['content'] : JSON.stringify(item['content'])}`
      : item.type === 'tool_call'
        ? `tool call ${String(item['name'])}(${String(item['arguments'])})`
        : item.type === 'tool_result'
          ? `tool result ${String(item['callId'])}: ${String(item['output'])}`
          : JSON.stringify(item);
  return h(
    'li',
    { class: 'sent-item', ...(s.position === undefined ? {} : { 'data-position': s.position }) },
    s.position === undefined ? '' : h('span', { class: 'muted' }, `#${s.position} `),
    marker,
    marker ? ' ' : '',
    h('span', { class: 'message' }, what),
  );
}
