import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInspector } from '../../../src/inspect.js';
import { parseDataset } from '../../../src/evals/eval-dataset.js';
import { billsAgent, storeBillSessions } from '../../helpers/eval-sessions.js';
import { seriousViolations } from '../../helpers/axe-check.js';
import { ARTIFACTS, useInspectorPages } from '../../helpers/inspector-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/** What the tests read of an element in the page (no DOM types in this project). */
interface Read {
  getAttribute(name: string): string | null;
  textContent: string | null;
}

/** Alice's bills sessions, an inspector with a datasets folder, and a page in Chromium. */
async function setup() {
  const { store, folder } = await temps.open();
  const agent = billsAgent();
  await storeBillSessions(store, 'alice', agent);
  const dir = join(folder, 'datasets');
  await mkdir(dir);
  const inspector = await startInspector({
    runtime: agent.runtimeFor(store),
    userId: 'alice',
    datasets: { dir },
  });
  inspectors.push(inspector);
  const page = await newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { inspector, page, errors, dir };
}

describe('inspector page in Chromium: datasets and eval results', () => {
  it('adds the shown run to a dataset', async () => {
    const { inspector, page, errors, dir } = await setup();
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="bill-08"]');
    await page.waitForSelector('#dataset-form');
    await page.fill('#dataset-name', 'picked');
    await page.selectOption('#dataset-steps', 'model-steps');
    await page.click('button[data-action="dataset"]');
    await page.waitForFunction(() =>
      (globalThis as unknown as { document: { getElementById(id: string): Read | null } }).document
        .getElementById('action-result')
        ?.textContent?.startsWith('added 2 step row(s) to picked'),
    );
    const added = parseDataset(await readFile(join(dir, 'picked.jsonl'), 'utf8'), {
      name: 'picked',
    });
    expect(added.rows.map((r) => [r.kind, r.source?.sessionId])).toEqual([
      ['step', 'bill-08'],
      ['step', 'bill-08'],
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'evals-dataset-added.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
