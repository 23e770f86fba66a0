import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startInspector } from '../../../src/inspect.js';
import { Agent } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing.js';
import { ARTIFACTS, useInspectorPages } from '../../helpers/inspector-fixtures.js';
import {
  deskApp,
  longConversation,
  redactSecret,
  refundThatFails,
  refundWithRetry,
  SECRET,
} from '../../helpers/waterfall-fixtures.js';

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

const AXE = fileURLToPath(new URL('../../../node_modules/axe-core/axe.min.js', import.meta.url));

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
      '0 tool',
      '1 run',
      '1 model',
      '1 approval',
      '1 approval-wait',
      '1 tool',
      '1 model',
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

  it("reads a rejected call as rejected and a wait without a deadline as a wait for approval, live and in the waterfall; a sub-agent's call spans its child run, nested under it", async () => {
    const { app, inspector, page, errors } = await setup(true);
    const key = { sessionId: 'refund-r', userId: 'ann' };
    await app.desk.run('hello', key);
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="refund-r"]');
    await page.waitForSelector('#feed-empty >> text=Nothing ran since');
    const paused = await app.desk.run('refund order o-9', key);
    const line = (text: string) => `#live-log button.feed-line:text-is("${text}")`;
    await page.waitForSelector(line('billing: waits for approval'));
    app.clock.advance(5_000);
    await app.desk.reject(key.sessionId, paused.interruptions[0]!.callId, {
      userId: 'ann',
      message: 'Refunds need a manager',
    });
    await page.waitForSelector(line('billing: tool refund rejected'));
    const lines = await page.$$eval('#live-log button.feed-line', (els: unknown[]) =>
      (els as Measured[]).map((el) => el.textContent ?? ''),
    );
    expect(lines.join('\n')).not.toContain('deadline');
    expect(lines).not.toContain('billing: tool refund failed');
    await shot(page, 'feed-rejected-call');

    await page.reload();
    await page.click('tr.session[data-session="refund-r"]');
    await page.waitForSelector('#waterfall .wf-row[data-kind="approval-wait"]');
    const drawn = await rows(page);
    // the sub-agent call's row first, its child run nested under it (not under the model row)
    expect(drawn.map((r) => `${r.depth} ${r.kind} ${r.label}`).slice(0, 4)).toEqual([
      '0 run desk (interrupted)',
      '0 model #0 model → ask_billing',
      '0 tool #1 tool ask_billing',
      '1 run desk › billing (completed)',
    ]);
    const [, , call, child] = drawn;
    // the call lasts as long as its child run (5 s of it waiting for a decision)
    expect(child!.ms).toBeGreaterThanOrEqual(5000);
    expect(call!.ms).toBeGreaterThanOrEqual(child!.ms);
    // the rejected call is marked rejected, not failed
    const refund = drawn.find((r) => r.label.startsWith('#1 tool refund'))!;
    expect(refund).toMatchObject({ depth: '1', label: '#1 tool refund (rejected)' });
    expect(refund.facts).toContain('rejected');
    expect(
      await page.$$eval(
        '#waterfall .wf-row[data-depth="1"] .wf-bar.wf-error',
        (els: unknown[]) => els.length,
      ),
    ).toBe(0);
    expect(
      await page.getAttribute(
        `#waterfall .wf-row[data-bar$="/1"][data-depth="1"] .wf-bar`,
        'class',
      ),
    ).toContain('wf-rejected');
    await shot(page, 'waterfall-rejected-call');
    expect(await seriousViolations(page, ['#waterfall', '#live-log'])).toEqual([]);
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
    expect(request).toContain('kept the last 4 of 11 history items (#7–#10)');
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

  it("shows what the model saw: its instructions exactly as sent, every tool schema (a handoff's too), and what the context window kept", async () => {
    const temp = await temps.open();
    const expert = new Agent({
      name: 'expert',
      store: temp.store,
      model: new ScriptedModel(() => ({ text: 'expert here' })),
    });
    const model = new ScriptedModel(
      (request) => {
        const last = request.items.at(-1);
        return { text: `heard: ${last?.type === 'message' ? JSON.stringify(last.content) : ''}` };
      },
      { recordCalls: true },
    );
    // instructions of the run's context: what the definition says is a function, not the text
    const clerk = new Agent({
      name: 'clerk',
      store: temp.store,
      model,
      history: { lastItems: 4 },
      instructions: (ctx) => `Answer ${ctx.userId} in one line. Never share ${SECRET}.`,
      redact: redactSecret,
      handoffs: [expert],
    });
    const key = { sessionId: 'clerk-w', userId: 'ann' };
    for (let i = 1; i <= 6; i++) await clerk.run(`turn ${i} words`, key);
    const inspector = await startInspector({
      runtime: clerk.runtimeFor(temp.store),
      userId: 'ann',
      agents: { clerk },
    });
    inspectors.push(inspector);
    const page = await newPage({ viewport: { width: 1400, height: 1000 }, bypassCSP: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="clerk-w"]');
    await page.click('#waterfall button.wf-model');
    await page.waitForSelector('.model-request[data-recorded="true"]');
    // the instructions as the model got them (scrubbed by the agent's redact before storing)
    const sent = model.calls.at(-1)!.instructions!;
    expect(sent).toBe(`Answer ann in one line. Never share ${SECRET}.`);
    expect(await page.textContent('.model-request pre.sent-instructions')).toBe(redactSecret(sent));
    // the handoff's tool with its parameter schema, as the model was offered it
    expect(
      await page.$$eval('.sent-tools li', (els: unknown[]) =>
        (els as Measured[]).map((el) => el.getAttribute('data-tool')),
      ),
    ).toEqual(['transfer_to_expert']);
    const tool = (await page.textContent('.sent-tools li[data-tool="transfer_to_expert"]')) ?? '';
    expect(tool).toContain('Hand the conversation over to the agent "expert"');
    expect(tool).toContain('"type": "object"');
    expect(tool).not.toContain('not available');
    // the header says what the window kept of the history when the model was asked
    expect(await page.textContent('.model-request .window-kept')).toBe(
      'The context window kept the last 4 of 11 history items (#7–#10); 7 older left out.',
    );
    expect(await page.content()).not.toContain(SECRET);
    await shot(page, 'what-the-model-saw-instructions');
    expect(await seriousViolations(page, ['#model-request'])).toEqual([]);
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
