import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startInspector } from '../../../src/inspect.js';
import { newSessionRecord } from '../../../src/runs/new-session-record.js';
import { seriousViolations } from '../../helpers/axe-check.js';
import { ARTIFACTS, useInspectorPages, opsAgent } from '../../helpers/inspector-fixtures.js';
import { failingAgent } from '../../helpers/run-status-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/** What the tests read of an element in the page (no DOM types in this project). */
type Attributed = { getAttribute(name: string): string | null };
type Texted = { textContent: string | null };

/** The `ops` agent on a temp store, an inspector of ann's sessions, and a Chromium page. */
async function setup() {
  const temp = await temps.open();
  const ops = opsAgent(temp.store);
  const runtime = ops.agent.runtimeFor(temp.store);
  const inspector = await startInspector({ runtime, userId: 'ann' });
  inspectors.push(inspector);
  const page = await newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // the page asks for nothing it cannot have: no favicon 404, nothing from elsewhere
  const failed: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith('data:') && !r.url().startsWith(inspector.url.split('/?')[0]!)) {
      failed.push(`outside: ${r.url()}`);
    }
  });
  return { temp, ops, runtime, inspector, page, errors, failed };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

const listed = (page: Page) =>
  page.$$eval('tr.session', (rows: Attributed[]) =>
    rows.map((r) => r.getAttribute('data-session')),
  );

const feedLines = (page: Page) =>
  page.$$eval('#live-log button.feed-line', (rows: Texted[]) => rows.map((r) => r.textContent));

describe('inspector page in Chromium: a list that operates', () => {
  it('filters to failed runs with their reasons, picks up a session created after load, and passes axe', async () => {
    const { temp, ops, inspector, page, errors, failed } = await setup();
    await ops.agent.run('hello there', { sessionId: 'greet', userId: 'ann' });
    await ops.agent.run('refund order o-7', { sessionId: 'refund-1', userId: 'ann' });
    const weather = failingAgent(temp.store);
    await weather.run('weather?', { sessionId: 'forecast', userId: 'ann' }).catch(() => undefined);

    await page.goto(inspector.url);
    await page.waitForSelector('tr.session[data-session="greet"]');
    // the session whose call waits for a decision comes first
    expect(await listed(page)).toEqual(['refund-1', 'forecast', 'greet']);
    expect(await page.textContent('tr.session[data-session="refund-1"]')).toContain('1 pending');
    expect(await seriousViolations(page)).toEqual([]);
    // the dark theme follows the system's choice, and passes axe (contrast included)
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'list-0-dark');
    // the toggle overrides it: system, light, dark
    await page.click('#theme-toggle');
    expect(await page.getAttribute('html', 'data-theme')).toBe('light');
    await page.click('#theme-toggle');
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.click('#theme-toggle');
    expect(await page.getAttribute('html', 'data-theme')).toBeNull();

    await page.selectOption('#run-filter', 'failed');
    await page.waitForSelector('tr.session[data-session="greet"]', { state: 'detached' });
    expect(await listed(page)).toEqual(['forecast']);
    const reason = await page.textContent('tr.session[data-session="forecast"] .row-reason');
    expect(reason).toContain('not valid JSON');
    expect(await page.textContent('tr.session[data-session="forecast"] .run-status')).toContain(
      'OUTPUT_VALIDATION',
    );
    await shot(page, 'list-1-failed-with-reasons');

    // a failed run started after the page loaded appears without a reload: by the live feed
    // when this inspector's agent runs it, by reading the list again when another one does
    await page.evaluate('window.marker = 1');
    await ops.agent.run('hello', { sessionId: 'greet-2', userId: 'ann' });
    await page.selectOption('#run-filter', 'completed');
    await page.waitForSelector('tr.session[data-session="greet-2"]');
    await page.selectOption('#run-filter', 'failed');
    await page.waitForSelector('tr.session[data-session="greet"]', { state: 'detached' });
    await failingAgent(temp.store)
      .run('weather?', { sessionId: 'forecast-2', userId: 'ann' })
      .catch(() => undefined);
    await page.waitForSelector('tr.session[data-session="forecast-2"] .row-reason');
    expect(await page.evaluate('window.marker')).toBe(1);
    expect(await listed(page)).toEqual(['forecast', 'forecast-2']);

    // text and agent filters; clearing them lists everything again
    await page.selectOption('#run-filter', '');
    await page.fill('#text-filter', 'refund');
    await page.press('#text-filter', 'Enter');
    // the failed filter listed neither refund-1 nor greet: wait for the text filter's own list
    await page.waitForSelector('tr.session[data-session="refund-1"]');
    await page.waitForSelector('tr.session[data-session="forecast"]', { state: 'detached' });
    expect(await listed(page)).toEqual(['refund-1']);
    await page.fill('#text-filter', '');
    await page.press('#text-filter', 'Enter');
    await page.fill('#agent-filter', 'w');
    await page.press('#agent-filter', 'Enter');
    await page.waitForSelector('tr.session[data-session="refund-1"]', { state: 'detached' });
    expect(await listed(page)).toEqual(['forecast', 'forecast-2']);
    await page.fill('#agent-filter', 'nobody');
    await page.press('#agent-filter', 'Enter');
    await page.waitForSelector('#list-empty >> text=No sessions match these filters');

    // keyboard: Tab reaches a row's link, arrows move between rows, Enter opens the session
    await page.fill('#agent-filter', '');
    await page.press('#agent-filter', 'Enter');
    await page.waitForSelector('tr.session[data-session="greet"]');
    await page.focus('a.session-link[data-session="refund-1"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#session-id:text("forecast-2")');
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('pages through 120 sessions, 25 a page, forward and back', async () => {
    const { temp, inspector, page, errors } = await setup();
    const id = (i: number) => `s-${String(i).padStart(3, '0')}`;
    for (let i = 0; i < 120; i++) {
      await temp.store.create(newSessionRecord({ sessionId: id(i), userId: 'ann' }, 1000 + i));
    }
    await page.goto(inspector.url);
    await page.waitForSelector('tr.session[data-session="s-000"]');
    await page.selectOption('#page-size', '25');
    await page.waitForSelector('tr.session[data-session="s-025"]', { state: 'detached' });
    const seen: string[] = [];
    for (let p = 0; p < 5; p++) {
      const rows = await listed(page);
      expect(rows).toHaveLength(p < 4 ? 25 : 20);
      expect(rows[0]).toBe(id(p * 25));
      seen.push(...rows.map(String));
      expect(await page.textContent('#page-at')).toContain(`page ${p + 1}`);
      if (p < 4) {
        await page.click('button[data-page="next"]');
        await page.waitForSelector(`tr.session[data-session="${id((p + 1) * 25)}"]`);
      }
    }
    expect(await page.isDisabled('button[data-page="next"]')).toBe(true);
    expect(new Set(seen).size).toBe(120);
    await shot(page, 'list-2-last-page');
    await page.click('button[data-page="previous"]');
    await page.waitForSelector(`tr.session[data-session="${id(75)}"]`);
    expect(await listed(page)).toEqual(Array.from({ length: 25 }, (_, i) => id(75 + i)));
    // the order holds across pages (newest first), from the first page again
    await page.selectOption('#sort', 'created');
    await page.waitForSelector(`tr.session:first-child[data-session="${id(119)}"]`);
    expect((await listed(page)).at(-1)).toBe(id(95));
    expect(errors).toEqual([]);
  });
});

describe('inspector page in Chromium: the session waiting for a person', () => {
  it('is on the first screen among 300 other sessions, in every sort', async () => {
    const { temp, ops, inspector, page, errors } = await setup();
    // Waits for a decision: created first (the oldest), its id after every other one.
    await ops.agent.run('refund order o-7', { sessionId: 'zz-refund', userId: 'ann' });
    const later = Date.now() + 60_000;
    for (let i = 0; i < 300; i++) {
      const key = { sessionId: `s-${String(i).padStart(3, '0')}`, userId: 'ann' };
      await temp.store.create(newSessionRecord(key, later + i));
    }
    await page.goto(inspector.url);
    const row = 'tr.session[data-session="zz-refund"]';
    await page.waitForSelector(row);
    const onFirstScreen = async () => {
      // the row as drawn once the page settled (a list drawn again replaces its rows)
      await page.locator(row).waitFor({ state: 'visible' });
      const box = await page.locator(row).boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y + box!.height).toBeLessThanOrEqual(1000);
      expect((await listed(page))[0]).toBe('zz-refund');
      expect(await page.textContent(row)).toContain('1 pending');
    };
    await onFirstScreen();
    for (const sort of ['updated', 'created', 'usage', 'id']) {
      // the list of this sort, not the one drawn before it
      await Promise.all([
        page.waitForResponse((r) => {
          const url = new URL(r.url());
          const asked = url.searchParams.get('sort') ?? 'id';
          return url.pathname === '/api/sessions' && asked === sort;
        }),
        page.selectOption('#sort', sort),
      ]);
      await page.waitForSelector(`tr.session:first-child[data-session="zz-refund"]`);
      await onFirstScreen();
    }
    await shot(page, 'list-4-waiting-first');
    expect(errors).toEqual([]);
  });
});

describe('inspector page in Chromium: a long history', () => {
  it('pages back through 347 items with "Load older": every item, in order, none doubled', async () => {
    const { temp, inspector, page, errors } = await setup();
    const total = 347;
    const items = Array.from({ length: total }, (_, i) => ({
      type: 'message' as const,
      role: 'user' as const,
      content: `item ${i}`,
    }));
    const key = { sessionId: 'long', userId: 'ann' };
    await temp.store.create({ ...newSessionRecord(key, 1_000), historyLength: total }, items);
    await page.goto(inspector.url);
    await page.click('a.session-link[data-session="long"]');
    await page.waitForSelector('#history .message');
    const lines = () =>
      page.$$eval('#history .message', (rows: Texted[]) => rows.map((r) => r.textContent));
    expect(await lines()).toHaveLength(50);
    let clicks = 0;
    while (await page.isVisible('#history-older')) {
      const before = (await lines()).length;
      await page.click('#history-older');
      await page.locator('#history .message').nth(before).waitFor();
      clicks++;
    }
    expect(clicks).toBe(3);
    expect(await lines()).toEqual(items.map((item, i) => `#${i} user: ${item.content}`));
    expect(await page.textContent('#detail h2:has-text("History")')).toContain(
      `${total} of ${total}`,
    );
    expect(errors).toEqual([]);
  });
});

describe('inspector page in Chromium: the live feed and the session', () => {
  it('reads a running run in words, oldest first, each line going to its step', async () => {
    const { ops, inspector, page, errors } = await setup();
    await ops.agent.run('hello', { sessionId: 'live', userId: 'ann' });
    await page.goto(inspector.url);
    await page.waitForSelector('#feed-empty >> text=Open a session');
    await page.click('a.session-link[data-session="live"]');
    await page.waitForSelector('#feed-empty >> text=Nothing ran since');
    await page.waitForSelector('#session-id:text("live")');
    const running = ops.agent.run('please wait', { sessionId: 'live', userId: 'ann' });
    await ops.entered();
    await page.waitForSelector('#live-log button.feed-line:text("ops: tool gate started")');
    await shot(page, 'feed-1-running');
    ops.open();
    await running;
    await page.waitForSelector('#live-log button.feed-line:text("ops: run completed")');
    const lines = await feedLines(page);
    const at = (text: string) => lines.findIndex((l) => l?.startsWith(text));
    // oldest first, in words
    expect(at('ops: model called')).toBeGreaterThanOrEqual(0);
    expect(
      lines.some((l) => /^ops: model answered \(\d+ in \/ \d+ out\), asks for gate$/.test(l!)),
    ).toBe(true);
    expect(at('ops: model called')).toBeLessThan(at('ops: model answered'));
    expect(at('ops: model answered')).toBeLessThan(at('ops: tool gate started'));
    expect(at('ops: tool gate started')).toBeLessThan(at('ops: tool gate finished'));
    expect(at('ops: tool gate finished')).toBeLessThan(at('ops: run completed'));
    // no raw XState event names
    expect(lines.join('\n')).not.toContain('xstate.');
    // a line goes to its step in the session view
    const step = await page.getAttribute(
      '#live-log button.feed-line:text("ops: tool gate started")',
      'data-step',
    );
    await page.click('#live-log button.feed-line:text("ops: tool gate started")');
    await page.waitForSelector(`#run [data-step="${step}"].step-target`);
    expect(await page.textContent(`#run [data-step="${step}"].step-target`)).toContain('gate');
    await shot(page, 'feed-2-step-shown');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('offers only the actions that apply; Reject sends its message to the run and the audit', async () => {
    const { ops, runtime, inspector, page, errors } = await setup();
    await ops.agent.run('hello', { sessionId: 'idle', userId: 'ann' });
    await ops.agent.run('refund order o-3', { sessionId: 'refund', userId: 'ann' });
    await page.goto(inspector.url);
    await page.click('a.session-link[data-session="idle"]');
    await page.waitForSelector('#no-run-actions >> text=nothing to resume or cancel');
    expect(await page.$('button[data-action="resume"]')).toBeNull();
    expect(await page.$('button[data-action="cancel"]')).toBeNull();
    expect(await page.$('button[data-action="fork"]')).not.toBeNull();
    await shot(page, 'session-1-idle-actions');

    await page.click('a.session-link[data-session="refund"]');
    await page.waitForSelector('.pending button[data-action="reject"]');
    expect(await page.$('button[data-action="resume"]')).not.toBeNull();
    expect(await page.$('button[data-action="cancel"]')).not.toBeNull();
    expect(await page.$('#no-run-actions')).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    const message = 'Refunds over 100 EUR need a manager';
    await page.fill('.pending input.reject-message', message);
    await shot(page, 'session-2-reject-with-message');
    await page.click('.pending button[data-action="reject"]');
    await page.waitForSelector('#no-run-actions');
    // the rejection's message is what the billing agent's tool step journaled
    await page.waitForSelector(`#run >> text=${message}`);
    const audit = await runtime.auditLog({ userId: 'ann', kind: 'rejection' });
    expect(audit.entries.map((e) => [e.tool, e.via])).toEqual([['refund', 'page']]);
    const view = await runtime.getSession({ sessionId: 'refund', userId: 'ann' });
    expect(view.lastRun?.status).toBe('completed');
    expect(ops.seen.refunds).toEqual([]);
    expect(errors).toEqual([]);
  });
});
