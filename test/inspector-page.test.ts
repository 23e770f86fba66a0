import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startInspector, type InspectorHandle } from '../src/inspect.js';
import { ScriptedModel } from '../src/testing.js';
import { ARTIFACTS, launchChromium, opsAgent } from './helpers/inspector-fixtures.js';
import { TempStores } from './helpers/temp-store.js';

const temps = new TempStores();
let browser: Browser;
const inspectors: InspectorHandle[] = [];
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser.close());
afterEach(async () => {
  await Promise.all(inspectors.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

async function setup() {
  const temp = await temps.open();
  const ops = opsAgent(temp.store);
  const inspector = await startInspector({
    runtime: ops.agent.runtimeFor(temp.store),
    userId: 'ann',
  });
  inspectors.push(inspector);
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { temp, ops, inspector, page, errors };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

const current = (page: Page, chart: 'session' | 'run') =>
  page.$$eval(`svg[data-chart="${chart}"] rect.state.current`, (rects: Attributed[]) =>
    rects.map((r) => r.getAttribute('data-state')),
  );

/** What the tests read of an element in the page (no DOM types in this project). */
type Attributed = { getAttribute(name: string): string | null };

describe('inspector page in Chromium', () => {
  it('lists a session; opening it draws both machines with the current state highlighted', async () => {
    const { ops, inspector, page, errors } = await setup();
    await ops.agent.run('hello there', { sessionId: 'greet', userId: 'ann' });
    const paused = await ops.agent.run('refund order o-7', {
      sessionId: 'refund-1',
      userId: 'ann',
    });
    expect(paused.interrupted).toBe(true);
    await page.goto(inspector.url);
    await page.waitForSelector('tr.session[data-session="refund-1"]');
    expect(
      await page.$$eval('tr.session', (rows: Attributed[]) =>
        rows.map((r) => r.getAttribute('data-session')),
      ),
    ).toEqual(expect.arrayContaining(['greet', 'refund-1']));
    await shot(page, '1-sessions');
    await page.click('tr.session[data-session="refund-1"]');
    await page.waitForSelector('svg[data-chart="run"] rect.current');
    expect(await current(page, 'session')).toEqual(['active', 'active.running']);
    expect(await current(page, 'run')).toEqual(['tools']);
    // nested states are drawn inside their parent
    expect(
      await page.$$eval(
        'svg[data-chart="run"] rect[data-state="approvals.checking"]',
        (r: unknown[]) => r.length,
      ),
    ).toBe(1);
    // the timeline nests the sub-agent's run under the call that started it
    expect(await page.textContent('#run .subrun')).toContain('ops › billing');
    expect(await page.textContent('.pending')).toContain('refund');
    expect(await page.textContent('.decision[data-decision="pending"]')).toContain('refund');
    await shot(page, '2-session-paused');
    // the status filter
    await page.selectOption('#status-filter', 'completed');
    await page.waitForSelector('tr.session', { state: 'detached' });
    expect(errors).toEqual([]);
  });

  it("shows a live run's state change while it runs, without reloading", async () => {
    const { ops, inspector, page, errors } = await setup();
    await ops.agent.run('hello', { sessionId: 'live', userId: 'ann' });
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="live"]');
    await page.waitForSelector('svg[data-chart="session"] rect.current[data-state="active.idle"]');
    await page.evaluate('window.marker = 1');
    const running = ops.agent.run('please wait', { sessionId: 'live', userId: 'ann' });
    await ops.entered();
    // the run stands in `tools` while its gate is closed: the page follows it live
    await page.waitForSelector('svg[data-chart="run"] rect.current[data-state="tools"]');
    await page.waitForSelector(
      'svg[data-chart="session"] rect.current[data-state="active.running"]',
    );
    await shot(page, '3-live-running');
    ops.open();
    expect((await running).output).toBe('ops: gate open');
    await page.waitForSelector('svg[data-chart="session"] rect.current[data-state="active.idle"]');
    await page.waitForSelector('svg[data-chart="run"] rect.current[data-state="completed"]');
    expect(await page.evaluate('window.marker')).toBe(1);
    expect(await page.textContent('#live-log')).toContain('live run snapshot');
    await shot(page, '4-live-done');
    expect(errors).toEqual([]);
  });

  it('approving a pending call from the page lets the run complete; fork and export work from the page', async () => {
    const { ops, inspector, page, temp, errors } = await setup();
    await ops.agent.run('refund order o-9', { sessionId: 'refund-2', userId: 'ann' });
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="refund-2"]');
    await page.waitForSelector('.pending button[data-action="approve"]');
    await page.click('.pending button[data-action="approve"]');
    await page.waitForSelector('svg[data-chart="session"] rect.current[data-state="active.idle"]');
    expect(ops.seen.refunds).toEqual(['o']);
    const view = await ops.agent
      .runtimeFor(temp.store)
      .getSession({ sessionId: 'refund-2', userId: 'ann' });
    expect(view.lastRun?.status).toBe('completed');
    expect(view.lastRun?.output).toContain('refunded');
    await shot(page, '5-approved');

    await page.fill('#fork-id', 'refund-2-retry');
    await page.fill('#fork-at', '1');
    await page.click('button[data-action="fork"]');
    await page.waitForSelector('tr.session[data-session="refund-2-retry"]');
    const forked = await temp.store.load({ sessionId: 'refund-2-retry', userId: 'ann' });
    expect([forked.parentId, forked.historyLength]).toEqual(['refund-2', 1]);
    await shot(page, '6-forked');

    await page.click('button[data-action="export"]');
    await page.waitForSelector('#export-link');
    const exported = await page.getAttribute('body', 'data-exported');
    const model = ScriptedModel.fromReplay(exported);
    expect(model).toBeInstanceOf(ScriptedModel);
    await shot(page, '7-exported');
    expect(errors).toEqual([]);
  });
});
