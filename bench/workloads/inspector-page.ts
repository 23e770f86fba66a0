/**
 * The inspector page in headless Chromium (issue 29): how long it takes to draw a session of
 * 500 messages, a run of about 200 steps, and the first page of a partition of 10,000 sessions,
 * each against the time the same browser takes to fetch the JSON that view reads (the ratio is
 * what the page adds), and the bytes the page transfers: its shell (HTML, script, style and the
 * first reads) and each view's JSON. Bytes are counts (they do not depend on the machine); times
 * are only meaningful as ratios on a loaded machine.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Agent, LevelSessionStore } from '../../src/index.js';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { newSessionRecord } from '../../src/runs/new-session-record.js';
import { ScriptedModel } from '../../src/testing.js';
import { add, tempDir, writeLongSession } from '../fixtures.js';
import { rowsOf, type Row } from '../table.js';

export interface InspectorPageRun {
  /** The 500-message session: click to drawn (session, charts, run, history), and its JSON. */
  longRenderMs: number;
  longFetchMs: number;
  longJsonBytes: number;
  /** The run of about 200 steps: click to its last step drawn, and its JSON. */
  steps: number;
  stepsRenderMs: number;
  stepsFetchMs: number;
  stepsJsonBytes: number;
  /** The first page (50) of a partition of 10,000 sessions: load to drawn, and its JSON. */
  listRenderMs: number;
  listFetchMs: number;
  listJsonBytes: number;
  /** What the page transfers before it shows its list: HTML, script, style, info, machines. */
  shellBytes: number;
}

export interface InspectorPageSizes {
  messages: number;
  toolCalls: number;
  sessions: number;
}

const USER = 'bench';
const MANY = 'many';

/** Writes the three data sets once, then opens each view `runs` times in fresh pages. */
export async function runInspectorPage(
  sizes: InspectorPageSizes,
  runs: number,
  log: (message: string) => void,
): Promise<InspectorPageRun[]> {
  const dir = await tempDir('agentstate-bench-inspector-');
  const store = await LevelSessionStore.open({ path: join(dir.path, 'db') });
  const inspectors: InspectorHandle[] = [];
  let browser: Browser | undefined;
  try {
    log(`inspector: a session of ${sizes.messages} messages`);
    const chat = await writeLongSession(store, { sessionId: 'long', userId: USER }, sizes.messages);
    log(`inspector: a run of ${sizes.toolCalls} tool calls`);
    const looping = new Agent({
      name: 'loop',
      model: new ScriptedModel((_request, call) =>
        call < sizes.toolCalls
          ? { toolCalls: [{ name: 'add', arguments: { a: call, b: 1 } }] }
          : { text: 'done' },
      ),
      tools: [add],
      maxTurns: sizes.toolCalls + 2,
      store,
    });
    await looping.run('go', { sessionId: 'steps', userId: USER });
    log(`inspector: ${sizes.sessions} sessions in one partition`);
    for (let i = 0; i < sizes.sessions; i++) {
      const id = `s-${String(i).padStart(6, '0')}`;
      await store.create(newSessionRecord({ sessionId: id, userId: MANY }, i));
    }
    const runtime = chat.runtimeFor(store);
    const one = await startInspector({ runtime, userId: USER });
    const many = await startInspector({ runtime, userId: MANY });
    inspectors.push(one, many);
    // Loaded here, not at the top: playwright-core adds about 60 MB of RSS to the process, and
    // the bench's own process measures W1's peak RSS (bench/run.ts imports this module).
    const { launchHeadlessChromium } = await import('../../scripts/headless-chromium.js');
    browser = await launchHeadlessChromium();
    const out: InspectorPageRun[] = [];
    for (let run = 0; run < runs; run++) {
      log(`inspector: open the views, run ${run + 1}/${runs}`);
      out.push(await openViews(browser, one, many));
    }
    return out;
  } finally {
    await browser?.close();
    await Promise.all(inspectors.map((i) => i.close()));
    await store.close();
    await dir.cleanup();
  }
}

async function openViews(
  browser: Browser,
  one: InspectorHandle,
  many: InspectorHandle,
): Promise<InspectorPageRun> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const bytes = new Map<string, number>();
  page.on('response', (response) => {
    void response
      .body()
      .then((body) => bytes.set(new URL(response.url()).pathname, body.length))
      .catch(() => undefined);
  });
  try {
    await page.goto(one.url);
    await page.waitForSelector('tr.session[data-session="steps"]');
    const shellBytes = sum(bytes, ['/', '/app.js', '/app.css', '/api/info', '/api/machines']);

    const long = await openSession(page, 'long', '#history .message');
    const stepsView = await openSession(page, 'steps', '#run .timeline li:last-child');
    const steps = await page.$$eval('#run .timeline > li', (items: unknown[]) => items.length);

    const listPage = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      const started = performance.now();
      await listPage.goto(many.url);
      await listPage.waitForSelector('tr.session[data-session="s-000049"]');
      const listRenderMs = performance.now() - started;
      const list = await fetchJson(listPage, ['/api/sessions?limit=50']);
      return {
        longRenderMs: long.renderMs,
        longFetchMs: long.fetchMs,
        longJsonBytes: long.bytes,
        steps,
        stepsRenderMs: stepsView.renderMs,
        stepsFetchMs: stepsView.fetchMs,
        stepsJsonBytes: stepsView.bytes,
        listRenderMs,
        listFetchMs: list.ms,
        listJsonBytes: list.bytes,
        shellBytes,
      };
    } finally {
      await listPage.close();
    }
  } finally {
    await page.close();
  }
}

/** Clicks a session's row until `drawn` shows, then fetches the same JSON in the same page. */
async function openSession(page: Page, sessionId: string, drawn: string) {
  const started = performance.now();
  await page.click(`tr.session[data-session="${sessionId}"]`);
  await page.waitForSelector(`#session-id:text("${sessionId}")`);
  await page.waitForSelector(drawn);
  await page.waitForSelector('svg[data-chart="run"] rect.current');
  const renderMs = performance.now() - started;
  const detail = await fetchJson(page, [`/api/sessions/${sessionId}`]);
  const runId = ((await page.getAttribute('#run .run-node', 'data-run')) ?? '').trim();
  const both = await fetchJson(page, [
    `/api/sessions/${sessionId}`,
    `/api/sessions/${sessionId}/runs/${runId}`,
  ]);
  return { renderMs, fetchMs: both.ms, bytes: both.bytes, detailBytes: detail.bytes };
}

/** Fetches the paths one after the other in the page (as the page does) and reads their JSON. */
async function fetchJson(page: Page, paths: string[]): Promise<{ ms: number; bytes: number }> {
  return page.evaluate(async (all: string[]) => {
    const started = performance.now();
    let bytes = 0;
    for (const path of all) {
      const res = await fetch(path);
      const text = await res.text();
      JSON.parse(text);
      bytes += new TextEncoder().encode(text).length;
    }
    return { ms: performance.now() - started, bytes };
  }, paths);
}

function sum(bytes: Map<string, number>, paths: string[]): number {
  return paths.reduce((total, p) => total + (bytes.get(p) ?? 0), 0);
}

/** The table's rows of the inspector part. */
export function inspectorRows(runs: InspectorPageRun[], sizes: InspectorPageSizes): Row[] {
  return [
    ...rowsOf(`Inspector: open a session of ${sizes.messages} messages`, runs, [
      ['click to drawn', 'ms', (r) => r.longRenderMs],
      ['fetch its JSON (session and run)', 'ms', (r) => r.longFetchMs],
      ['  drawn / fetch', 'x', (r) => r.longRenderMs / r.longFetchMs],
      ['its JSON', 'bytes', (r) => r.longJsonBytes],
    ]),
    ...rowsOf(`Inspector: open a run of ${sizes.toolCalls} tool calls`, runs, [
      ['steps drawn', 'count', (r) => r.steps],
      ['click to drawn', 'ms', (r) => r.stepsRenderMs],
      ['fetch its JSON (session and run)', 'ms', (r) => r.stepsFetchMs],
      ['  drawn / fetch', 'x', (r) => r.stepsRenderMs / r.stepsFetchMs],
      ['its JSON', 'bytes', (r) => r.stepsJsonBytes],
    ]),
    ...rowsOf(`Inspector: the first page of ${sizes.sessions} sessions`, runs, [
      ['load to drawn (page, script, list)', 'ms', (r) => r.listRenderMs],
      ['fetch the page of 50', 'ms', (r) => r.listFetchMs],
      ['  drawn / fetch', 'x', (r) => r.listRenderMs / r.listFetchMs],
      ['its JSON', 'bytes', (r) => r.listJsonBytes],
      [
        'the page before its list (HTML, script, style, info, machines)',
        'bytes',
        (r) => r.shellBytes,
      ],
    ]),
  ];
}
