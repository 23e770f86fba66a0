import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startInspector } from '../src/inspect.js';
import { ARTIFACTS, useInspectorPages } from './helpers/inspector-fixtures.js';
import {
  deskApp,
  longConversation,
  redactSecret,
  refundThatFails,
  refundWithRetry,
  SECRET,
} from './helpers/waterfall-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/**
 * The `desk` app on a temp store, an inspector over it (redacting `SECRET`) and a page; `axe`:
 * the page lets the accessibility checker's script in (its CSP bypassed), else it is enforced.
 */
async function setup(axe = false) {
  const temp = await temps.open();
  const app = deskApp(temp.store);
  const inspector = await startInspector({
    runtime: app.desk.runtimeFor(temp.store),
    userId: 'ann',
    agents: { desk: app.desk },
    redact: redactSecret,
  });
  inspectors.push(inspector);
  const page = await newPage({ viewport: { width: 1400, height: 1000 }, bypassCSP: axe });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { app, inspector, page, errors };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

/** What the tests read of an element in the page (no DOM types in this project). */
interface Measured {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { width: number; left: number };
  textContent: string | null;
}

interface Row {
  kind: string | null;
  depth: string | null;
  label: string;
  ms: number;
  width: number;
  facts: string;
  retried: boolean;
}

const rows = (page: Page): Promise<Row[]> =>
  page.$$eval('#waterfall .wf-row[data-bar]', (els: unknown[]) =>
    (els as (Measured & { querySelector(s: string): Measured | null })[]).map((el) => {
      const bar = el.querySelector('.wf-bar')!;
      return {
        kind: el.getAttribute('data-kind'),
        depth: el.getAttribute('data-depth'),
        label: el.querySelector('.wf-label')!.textContent ?? '',
        ms: Number(bar.getAttribute('data-ms')),
        width: bar.getBoundingClientRect().width,
        facts: el.querySelector('.wf-facts')!.textContent ?? '',
        retried:
          el.querySelector('.wf-retry') !== null && el.querySelector('.wf-wait-retry') !== null,
      };
    }),
  );

/** axe-core's serious and critical violations inside `include` (the page's CSP let through). */
async function seriousViolations(page: Page, include: string[]): Promise<string[]> {
  await page.addScriptTag({ content: await readFile(AXE, 'utf8') });
  return page.evaluate<string[]>(
    `axe.run({ include: ${JSON.stringify(include.map((s) => [s]))} }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  );
}

const AXE = fileURLToPath(new URL('../node_modules/axe-core/axe.min.js', import.meta.url));

describe('inspector page in Chromium: waterfall and what the model saw', () => {
  it('draws the waterfall of a run with a sub-agent, an approval wait and a retry, to scale', async () => {
    const { app, inspector, page, errors } = await setup();
    await refundWithRetry(app);
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="refund-w"]');
    await page.waitForSelector('#waterfall .wf-row[data-kind="approval-wait"]');
    const drawn = await rows(page);
    expect(drawn.map((r) => `${r.depth} ${r.kind}`)).toEqual([
      '0 run',
      '0 model',
      '1 run',
      '1 model',
      '1 approval',
      '1 approval-wait',
      '1 tool',
      '1 model',
      '0 tool',
      '0 model',
    ]);
    const wait = drawn.find((r) => r.kind === 'approval-wait')!;
    const models = drawn.filter((r) => r.kind === 'model');
    const tool = drawn.find((r) => r.kind === 'tool' && r.depth === '1')!;
    // widths in proportion to durations: the 5 s wait is 25 times a 200 ms model call
    expect(wait.ms).toBe(5000);
    for (const m of models) {
      expect(m.ms).toBe(200);
      expect(wait.width / m.width).toBeCloseTo(25, 0);
    }
    expect(models[0]!.width / tool.width).toBeCloseTo(4, 0);
    expect(wait.label).toContain('waits for approval: refund');
    // the retried model call is marked, with its failed attempt and wait drawn before it
    const retried = drawn.filter((r) => r.retried);
    expect(retried.map((r) => r.label)).toEqual(['#2 model answer']);
    expect(retried[0]!.facts).toContain('retried 1×');
    // tokens and cost on each model bar
    expect(models.at(-1)!.facts).toContain('120 in / 30 out · $0.000000');
    await shot(page, 'waterfall-sub-agent-retry-approval');
    expect(errors).toEqual([]);
  });

  it('draws the model call that failed and stopped the run red, with its reason', async () => {
    const { app, inspector, page, errors } = await setup();
    await refundThatFails(app);
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="refund-w"]');
    await page.waitForSelector('#waterfall .wf-row .wf-bar.wf-error');
    expect(await page.textContent('#waterfall .wf-row:has(.wf-error) .wf-reason')).toContain(
      'upstream overloaded',
    );
    await shot(page, 'waterfall-failed-model-call');
    expect(errors).toEqual([]);
  });

  it('shows what a model step saw: only the items the context window kept, the tools offered, redacted', async () => {
    const { app, inspector, page, errors } = await setup(true);
    await longConversation(app);
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="long-w"]');
    await page.waitForSelector('#waterfall button.wf-model');
    await page.click('#waterfall button.wf-model');
    await page.waitForSelector('.model-request[data-recorded="true"]');
    const sent = await page.$$eval('.model-request .sent-item', (els: unknown[]) =>
      (els as Measured[]).map((el) => [el.getAttribute('data-position'), el.textContent]),
    );
    expect(sent).toEqual([
      ['7', '#7 assistant: desk heard: turn 4 words'],
      ['8', '#8 user: turn 5 words'],
      ['9', '#9 assistant: desk heard: turn 5 words'],
      ['10', '#10 user: turn 6 my key is [REDACTED]'],
    ]);
    const request = (await page.textContent('.model-request')) ?? '';
    expect(request).toContain('history items 7–10 of 12');
    expect(request).not.toContain('turn 1 words');
    expect(
      await page.$$eval('.sent-tools li', (els: unknown[]) =>
        (els as Measured[]).map((el) => el.getAttribute('data-tool')),
      ),
    ).toEqual(['ask_billing', 'lookup']);
    expect(request).toContain('"temperature": 0.3');
    expect(request).toContain('"order"');
    expect(await page.content()).not.toContain(SECRET);
    await shot(page, 'what-the-model-saw');
    expect(await seriousViolations(page, ['#waterfall', '#model-request'])).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("steps through the run with its context before and after each step, forks from a step and shows the fork's diff", async () => {
    const { app, inspector, page, errors } = await setup(true);
    await refundWithRetry(app);
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="refund-w"]');
    await page.waitForSelector('#time-travel .tt-frame[data-step="0"]');
    expect(await page.textContent('#tt-pos')).toBe('step 1 of 3: #0 model → ask_billing');
    await page.click('#tt-next');
    await page.click('#tt-next');
    await page.waitForSelector('#time-travel .tt-frame[data-step="2"]');
    // the arrow keys step too, the focus staying in the step
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('#time-travel .tt-frame[data-step="1"]');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#time-travel .tt-frame[data-step="2"]');
    const cells = (field: string) =>
      page.$$eval(`.tt-context tr[data-field="${field}"] td`, (tds: unknown[]) =>
        (tds as Measured[]).map((td) => td.textContent),
      );
    expect(await cells('modelCalls')).toEqual(['modelCalls', '1', '2']);
    expect(await cells('historyLength')).toEqual(['historyLength', '3', '4']);
    expect(await page.getAttribute('.tt-context tr[data-field="modelCalls"]', 'class')).toBe(
      'changed',
    );
    expect(await page.textContent('.tt-added')).toContain('#3 assistant: desk: billing');
    await shot(page, 'time-travel-step');
    await page.fill('#tt-fork-id', 'refund-w-2');
    await page.click('#tt-fork');
    await page.waitForSelector('#session-id:text-is("refund-w-2")');
    await page.waitForSelector('#origin .origin-diff');
    await app.desk.run('status of o-8?', { sessionId: 'refund-w-2', userId: 'ann' });
    await page.click('tr.session[data-session="refund-w-2"]');
    await page.waitForSelector('#origin .only-here li');
    expect(await page.textContent('#origin')).toContain(
      'Forked from refund-w at history position 3: 3 items shared; since then 2 here, 1 in the parent',
    );
    expect(
      await page.$$eval('#origin .only-here li, #origin .only-parent li', (els: unknown[]) =>
        (els as Measured[]).map((el) => el.textContent),
      ),
    ).toEqual([
      '+ #3 user: status of o-8?',
      '+ #4 assistant: desk heard: status of o-8?',
      '− #3 assistant: desk: billing: order o-7 refunded',
    ]);
    await shot(page, 'fork-origin-diff');
    expect(await seriousViolations(page, ['#waterfall', '#time-travel', '#origin'])).toEqual([]);
    await page.click('#origin-parent');
    await page.waitForSelector('#session-id:text-is("refund-w")');
    expect(errors).toEqual([]);
  });
});
