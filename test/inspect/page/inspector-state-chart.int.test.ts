import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startInspector } from '../../../src/inspect.js';
import { Agent } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing.js';
import { newSessionRecord } from '../../../src/runs/new-session-record.js';
import { ARTIFACTS, useInspectorPages } from '../../helpers/inspector-fixtures.js';
import { firstUserText, lastResult, triageWithBilling } from '../../helpers/sub-agent-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/** What the tests read of an element in the page (no DOM types in this project). */
type Attributed = { getAttribute(name: string): string | null; textContent: string | null };

/**
 * `desk` hands every task to `triage` (a sub-agent), which hands it to `billing` (a sub-agent
 * of the sub-agent), whose refund waits for a human: the run tree is three deep.
 */
async function deskWaitingTwoDeep(colorScheme: 'light' | 'dark' = 'light') {
  // (and `empty`, a session without a run)
  const temp = await temps.open();
  const { triage, seen } = triageWithBilling({ store: temp.store });
  const desk = new Agent({
    name: 'desk',
    store: temp.store,
    model: new ScriptedModel((request) => {
      const result = lastResult(request);
      if (result !== undefined) return { text: `desk: ${result}` };
      return {
        toolCalls: [{ name: 'ask_triage', arguments: { input: firstUserText(request) } }],
      };
    }),
    tools: [triage.asTool({ name: 'ask_triage', description: 'Routes a question' })],
  });
  const paused = await desk.run('refund order o-7', { sessionId: 'deep', userId: 'ann' });
  await temp.store.create(newSessionRecord({ sessionId: 'empty', userId: 'ann' }, 1000));
  expect(paused.interrupted).toBe(true);
  const inspector = await startInspector({ runtime: desk.runtimeFor(temp.store), userId: 'ann' });
  inspectors.push(inspector);
  // (CSP off only so that the test can add axe-core to the page)
  const page = await newPage({
    viewport: { width: 1400, height: 1000 },
    colorScheme,
    bypassCSP: true,
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(inspector.url);
  await page.click('tr.session[data-session="deep"]');
  await page.waitForSelector('svg[data-chart="run"] g.edge.taken', { state: 'attached' });
  return { page, errors, seen };
}

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (els: Attributed[]) => els.map((e) => (e.textContent ?? '').trim()));
const attrs = (page: Page, selector: string, name: string) =>
  page.$$eval(
    selector,
    (els: Attributed[], n: string) => els.map((e) => e.getAttribute(n) ?? ''),
    name,
  );
/** What the tests read of a drawn element (no DOM types in this project). */
type Drawn = {
  ownerSVGElement: (Drawn & { viewBox: { baseVal: { width: number } } }) | null;
  getBoundingClientRect(): { width: number };
};
/** The page's `getComputedStyle` (each callback run in the page names it itself). */
type Styled = {
  getComputedStyle(e: unknown): {
    fontSize: string;
    fill: string;
    color: string;
    backgroundColor: string;
  };
  document: { body: unknown };
};

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe('inspector statecharts in Chromium', () => {
  it("draws the run machine with its transitions and the path the run took; a sub-agent's sub-agent's chart (depth 2) sits under its parent's, showing its wait for approval; a state lists its steps", async () => {
    const { page, errors, seen } = await deskWaitingTwoDeep();
    const root = 'svg[data-chart="run"]';

    // Transitions drawn as labelled arrows, their labels the definition's events and guards.
    const labels = await texts(page, `${root} g.edge text.edge-label`);
    expect(await page.$$eval(`${root} g.edge path`, (p: unknown[]) => p.length)).toBeGreaterThan(
      20,
    );
    expect(labels.length).toBeGreaterThan(20);
    expect(labels).toEqual(expect.arrayContaining(['CANCEL', 'CONTINUE', 'done']));
    // A guarded transition shows its guard, alone or after its event ("done [hasCalls]").
    expect(labels.some((label) => /(^|\s)\[hasCalls\]$/.test(label))).toBe(true);
    expect(await page.$$eval(`${root} circle.initial`, (c: unknown[]) => c.length)).toBe(2);
    expect(await page.$$eval(`${root} rect.final-inner`, (r: unknown[]) => r.length)).toBe(3);
    expect(await texts(page, `${root} g.state-node[data-state="modelCall"] text`)).toContain(
      'invokes modelStep',
    );

    // The path: from the initial dot (through the routing states, whichever the definition has)
    // into modelCall, out of it on its step's end, on to tools, where the run stands while its
    // sub-agent waits.
    const taken = await attrs(page, `${root} g.edge.taken`, 'data-event');
    expect(taken.length).toBeGreaterThanOrEqual(3);
    expect(taken).toEqual(expect.arrayContaining(['', 'onDone(modelStep)']));
    expect(await attrs(page, `${root} g.edge.taken`, 'data-to')).toEqual(
      expect.arrayContaining(['modelCall', 'tools']),
    );
    // modelCall's step end, labelled "done" with the guard that routed it, if any.
    expect(
      (await texts(page, `${root} g.edge.taken text`)).some((label) => /^done\b/.test(label)),
    ).toBe(true);
    expect(await attrs(page, `${root} rect.state.visited`, 'data-state')).toEqual(
      expect.arrayContaining(['modelCall', 'tools']),
    );
    expect(await attrs(page, `${root} rect.state.current`, 'data-state')).toEqual(['tools']);
    expect(await attrs(page, `${root} rect.state.visited`, 'data-state')).not.toContain(
      'awaitingApproval',
    );
    const model = await page.getAttribute(
      `${root} g.state-node[data-state="modelCall"]`,
      'aria-label',
    );
    expect(model).toMatch(
      /^modelCall invokes modelStep 1×( · \d+ ms)?: state modelCall, entered 1×(, \d+ ms there)?, 1 step\(s\)$/,
    );
    expect(
      await page.getAttribute(`${root} g.state-node[data-state="tools"]`, 'aria-label'),
    ).toContain('current, entered 1×, 1 sub-agent run(s)');

    // Sub-agents: triage at depth 1, billing at depth 2, each chart inside its parent's.
    const depth1 = '.run-chart[data-depth="0"] > .subcharts > .run-chart[data-depth="1"]';
    const depth2 = `${depth1} > .subcharts > .run-chart[data-depth="2"]`;
    expect(await page.textContent(`${depth1} > .chart-head`)).toContain('desk › triage');
    expect(await page.textContent(`${depth2} > .chart-head`)).toContain('desk › triage › billing');
    // The waiting child shows it: its chart stands in awaitingApproval, reached through the
    // approval check.
    expect(await page.textContent(`${depth2} > .chart-head`)).toContain(
      'waits for approval: refund',
    );
    // Each sub-agent run shows its path in a line; its full chart opens on demand.
    const child = `${depth2} svg[data-chart="subrun"]`;
    await page.click(`${depth1} > button.chart-full-toggle`);
    await page.click(`${depth2} > button.chart-full-toggle`);
    expect(await attrs(page, `${child} rect.state.current`, 'data-state')).toEqual([
      'awaitingApproval',
    ]);
    expect(await attrs(page, `${child} g.edge.taken`, 'data-event')).toContain(
      'onDone(approvalCheck)',
    );
    expect(await attrs(page, `${child} g.edge.taken`, 'data-to')).toContain('awaitingApproval');
    // billing entered modelCall twice (lookup, then refund) and tools once
    expect(
      await page.getAttribute(`${child} g.state-node[data-state="modelCall"]`, 'aria-label'),
    ).toMatch(/entered 2×/);
    // linked to the parent's state that holds it
    expect(await page.textContent(`${depth2} > .chart-head a.chart-link`)).toBe(
      'desk › triage tools',
    );
    await shot(page, 'chart-1-run-path-depth-2');
    await page
      .locator('.run-chart[data-depth="0"]')
      .screenshot({ path: join(ARTIFACTS, 'chart-2-run-charts.png') });

    // Clicking a state lists the steps that ran in it.
    await page.click(`${root} g.state-node[data-state="modelCall"]`);
    const steps = '.run-chart[data-depth="0"] > .state-steps';
    await page.waitForSelector(`${steps} li[data-step]`);
    expect(await texts(page, `${steps} li`)).toEqual([
      expect.stringMatching(/^#0 model asked for ask_triage/),
    ]);
    // By keyboard: Tab reaches the states; Enter on billing's tools lists its tool step.
    await page.focus(`${child} g.state-node[data-state="tools"]`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${depth2} > .state-steps li[data-step]`);
    expect(await texts(page, `${depth2} > .state-steps li`)).toEqual([
      expect.stringMatching(/^#1 tool lookup/),
    ]);
    await page.focus(`${root} g.state-node[data-state="tools"]`);
    await page.keyboard.press('Enter');
    expect(await texts(page, '.run-chart[data-depth="0"] > .state-steps a.chart-link')).toEqual([
      'desk › triage (tools)',
    ]);
    await shot(page, 'chart-3-state-steps');

    // Approved from the page: the whole tree completes, and the chart shows the way out.
    await page.click('.pending button[data-action="approve"]');
    // (the live feed moves the highlight at once; the redraw with the path follows)
    await page.waitForSelector(`${root} rect.state.current.visited[data-state="completed"]`);
    expect(seen.refunds).toEqual(['o']);
    expect(await attrs(page, `${root} rect.state.visited`, 'data-state')).toContain('completed');
    expect(
      await page.getAttribute(`${root} g.state-node[data-state="modelCall"]`, 'aria-label'),
    ).toMatch(/entered 2×/);
    // The finished run's sub-agent runs, stored flat, are nested again under their callers.
    await page.click(`${depth1} > button.chart-full-toggle`);
    await page.click(`${depth2} > button.chart-full-toggle`);
    expect(
      await attrs(page, `${depth2} svg[data-chart="subrun"] rect.state.current`, 'data-state'),
    ).toEqual(['completed']);
    await shot(page, 'chart-4-completed');
    expect(errors).toEqual([]);
  });

  it('opens legible: chart text at 11px or more (the pane scrolls), the transitions into failed as one arrow, each sub-agent run as its path in a line with its full chart on demand', async () => {
    const { page, errors } = await deskWaitingTwoDeep();
    // the size each chart text is drawn at: its font size times its chart's scale on screen
    const drawnSizes = () =>
      page.$$eval('.charts svg text', (els: unknown[]) =>
        (els as Drawn[]).map((el) => {
          const svg = el.ownerSVGElement!;
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          return (
            parseFloat((globalThis as unknown as Styled).getComputedStyle(el).fontSize) * scale
          );
        }),
      );
    const sizes = await drawnSizes();
    expect(sizes.length).toBeGreaterThan(50);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(11);
    const root = 'svg[data-chart="run"]';
    // one arrow into failed, from the box that lists the transitions it stands for
    expect(await attrs(page, `${root} g.edge[data-to="failed"]`, 'data-from')).toEqual([
      'failed#from',
    ]);
    const gathered = await texts(page, `${root} g.group-marker[data-marker="failed#from"] text`);
    expect(gathered).toEqual(
      expect.arrayContaining(['from any of:', 'modelCall: error', 'tools: onError(any child)']),
    );
    expect(gathered).toHaveLength(10);
    // the sub-agent runs: no chart drawn until asked, their paths in a line
    const depth1 = '.run-chart[data-depth="1"]';
    const depth2 = `${depth1} .run-chart[data-depth="2"]`;
    expect(await page.$$eval(`${depth1} svg`, (els: unknown[]) => els.length)).toBe(0);
    const hops = await texts(page, `${depth2} > .compact-path button.hop`);
    expect(hops[0]).toBe('turnStart');
    expect(hops).toContain('modelCall ×2');
    expect(hops.at(-1)).toBe('awaitingApproval (now)');
    expect(await attrs(page, `${depth2} > .compact-path button.hop.current`, 'data-state')).toEqual(
      ['awaitingApproval'],
    );
    // choosing a state of the path lists its steps, as the chart does
    await page.click(`${depth2} > .compact-path button.hop[data-state="tools"]`);
    await page.waitForSelector(`${depth2} > .state-steps li[data-step]`);
    expect(await texts(page, `${depth2} > .state-steps li`)).toEqual([
      expect.stringMatching(/^#1 tool lookup/),
    ]);
    await page.click(`${depth2} > button.chart-full-toggle`);
    await page.waitForSelector(`${depth2} svg[data-chart="subrun"]`);
    expect(await page.getAttribute(`${depth2} > button.chart-full-toggle`, 'aria-expanded')).toBe(
      'true',
    );
    expect(Math.min(...(await drawnSizes()))).toBeGreaterThanOrEqual(11);
    await shot(page, 'chart-6-legible-at-open');
    // "fit to width" shrinks the run's chart into its pane, on demand
    await page.click('.run-chart[data-depth="0"] > button.chart-zoom');
    const fitted = await page.$eval('.run-chart[data-depth="0"] > .chart-scroll', (el: unknown) => {
      const box = el as Drawn & { clientWidth: number; querySelector(s: string): Drawn };
      return box.querySelector('svg').getBoundingClientRect().width <= box.clientWidth;
    });
    expect(fitted).toBe(true);
    expect(errors).toEqual([]);
  });

  it('follows the page theme, the system one and the toggle, and says what to do where there is no run to draw', async () => {
    const colours = (page: Page) =>
      page.$eval('.charts .chart', (el: unknown) => {
        const chart = el as Drawn & { querySelector(s: string): Drawn };
        const window = globalThis as unknown as Styled;
        return {
          chart: window.getComputedStyle(chart).backgroundColor,
          text: window.getComputedStyle(chart.querySelector('svg text')).fill,
          pageText: window.getComputedStyle(window.document.body).color,
        };
      });
    const dark = await deskWaitingTwoDeep('dark');
    const panel = async (page: Page) =>
      page.$eval(
        'header',
        (el: unknown) => (globalThis as unknown as Styled).getComputedStyle(el).backgroundColor,
      );
    // the system's dark scheme: the charts are the page's dark panels with its text colour
    const darkPanel = await panel(dark.page);
    expect(darkPanel).toBe('rgb(27, 31, 39)');
    expect(await colours(dark.page)).toEqual({
      chart: darkPanel,
      text: 'rgb(228, 231, 236)',
      pageText: 'rgb(228, 231, 236)',
    });
    // the toggle's dark theme in a light system: dark charts too
    const light = await deskWaitingTwoDeep('light');
    expect((await colours(light.page)).chart).toBe('rgb(255, 255, 255)');
    await light.page.click('#theme-toggle'); // light
    await light.page.click('#theme-toggle'); // dark
    expect(await light.page.getAttribute('html', 'data-theme')).toBe('dark');
    expect(await colours(light.page)).toEqual(await colours(dark.page));
    await shot(light.page, 'chart-7-dark-by-toggle');
    // a session with no run yet: the run chart's pane says what to do
    await light.page.click('tr.session[data-session="empty"]');
    await light.page.waitForSelector('#run-chart-empty');
    expect(await light.page.textContent('#run-chart-empty')).toContain(
      'send this session a message',
    );
    expect([...dark.errors, ...light.errors]).toEqual([]);
  });

  it('draws in the dark colour scheme with its own colours; the charts have no serious accessibility violation in either', async () => {
    const light = await deskWaitingTwoDeep('light');
    const dark = await deskWaitingTwoDeep('dark');
    const fill = (page: Page) =>
      page.$eval(
        'svg[data-chart="run"] rect.state.current',
        (el: unknown) =>
          (
            globalThis as unknown as {
              getComputedStyle(e: unknown): { fill: string };
            }
          ).getComputedStyle(el).fill,
      );
    expect(await fill(light.page)).not.toBe(await fill(dark.page));
    await shot(dark.page, 'chart-5-dark');
    for (const { page } of [light, dark]) {
      await page.addScriptTag({
        path: createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
      });
      const serious = await page.evaluate(async () => {
        type Result = { violations: { id: string; impact: string; nodes: unknown[] }[] };
        const axe = (globalThis as unknown as { axe: { run(c: string): Promise<Result> } }).axe;
        const { violations } = await axe.run('.charts');
        return violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.nodes.length})`);
      });
      expect(serious).toEqual([]);
    }
    expect([...light.errors, ...dark.errors]).toEqual([]);
  });
});
