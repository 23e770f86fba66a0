/**
 * One-off figure (not part of `npm run bench`; `--inspector` has the full part): how long the
 * inspector page takes to open a session of 500 messages (500 runs, 2,000 history items) in
 * headless Chromium, from the click on its row until the session, both charts, the last run's
 * timeline and the history tail are drawn. Run: npx tsx bench/inspector-open.ts
 */
import { join } from 'node:path';
import { launchHeadlessChromium } from '../scripts/headless-chromium.js';
import { LevelSessionStore } from '../src/index.js';
import { startInspector } from '../src/inspect.js';
import { tempDir, writeLongSession } from './fixtures.js';
import { median } from './stats.js';

const MESSAGES = 500;
const folder = await tempDir('agentstate-inspector-bench-');
const store = await LevelSessionStore.open({ path: join(folder.path, 'db') });
const key = { sessionId: 'long', userId: 'bench' };
const agent = await writeLongSession(store, key, MESSAGES);
const inspector = await startInspector({ runtime: agent.runtimeFor(store), userId: 'bench' });
const browser = await launchHeadlessChromium();
try {
  const times: number[] = [];
  for (let round = 0; round < 7; round++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(inspector.url);
    await page.waitForSelector('tr.session[data-session="long"]');
    const started = performance.now();
    await page.click('tr.session[data-session="long"]');
    await page.waitForSelector('#run .timeline li');
    await page.waitForSelector('#history .message');
    await page.waitForSelector('svg[data-chart="run"] rect.current');
    times.push(performance.now() - started);
    await page.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `open a session of ${MESSAGES} messages (${(await store.load(key)).historyLength} items): median ${median(times).toFixed(0)} ms, min ${sorted[0]!.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms over ${times.length} opens`,
  );
} finally {
  await browser.close();
  await inspector.close();
  await store.close();
  await folder.cleanup();
}
