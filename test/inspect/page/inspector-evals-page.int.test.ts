import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInspector } from '../../../src/inspect.js';
import type { Agent, SessionStore } from '../../../src/index.js';
import { parseDataset, writeDataset } from '../../../src/evals/eval-dataset.js';
import type { EvalRow } from '../../../src/evals/eval-row.js';
import { rowsFromRun } from '../../../src/evals/rows-from-run.js';
import { runEval } from '../../../src/evals/run-eval.js';
import { exactOutput } from '../../../src/evals/scorers/exact-output.js';
import { toolCallsMatch } from '../../../src/evals/scorers/tool-calls-match.js';
import { billsAgent, billsModel, storeBillSessions } from '../../helpers/eval-sessions.js';
import { seriousViolations } from '../../helpers/axe-check.js';
import { ARTIFACTS, useInspectorPages } from '../../helpers/inspector-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/** What the tests read of an element in the page (no DOM types in this project). */
interface Read {
  getAttribute(name: string): string | null;
  textContent: string | null;
}

/**
 * Alice's bills sessions (with `evals`, eval runs of four of them: {@link storeEvals}), an
 * inspector with a datasets folder, and a page in Chromium.
 */
async function setup(evals: boolean) {
  const { store, folder } = await temps.open();
  const agent = billsAgent();
  await storeBillSessions(store, 'alice', agent);
  const dir = join(folder, 'datasets');
  await mkdir(dir);
  if (evals) await storeEvals(store, agent, dir);
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

/**
 * A dataset of four bills sessions, a baseline eval and a worse candidate's (bill-01, $20, paid
 * $21) in the app's store.
 */
async function storeEvals(store: SessionStore, agent: Agent<unknown>, dir: string): Promise<void> {
  const rows: EvalRow[] = [];
  for (const sessionId of ['bill-01', 'bill-04', 'bill-08', 'bill-09']) {
    rows.push(
      ...(await rowsFromRun(
        { store, agent },
        { sessionId, userId: 'alice' },
        { idPrefix: sessionId },
      )),
    );
  }
  const dataset = await writeDataset(join(dir, 'four.jsonl'), rows);
  const scorers = () => [exactOutput(), toolCallsMatch()];
  await runEval({ id: 'base', store, userId: 'alice', agent, dataset, scorers: scorers() });
  await runEval({
    id: 'careless',
    store,
    userId: 'alice',
    agent,
    dataset,
    scorers: scorers(),
    candidate: { model: billsModel({ careless: true }) },
    label: 'careless',
  });
}

describe('inspector page in Chromium: datasets and eval results', () => {
  it('adds the shown run to a dataset', async () => {
    const { inspector, page, errors, dir } = await setup(false);
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

  it('lists the eval runs and shows one report row by row', async () => {
    const { inspector, page, errors } = await setup(true);
    await page.goto(inspector.url);
    await page.click('#evals-link');
    await page.waitForSelector('#evals-view tr[data-eval="careless"]');
    const listed = await page.$$eval('#evals-view tbody tr', (els: unknown[]) =>
      (els as Read[]).map((el) => el.getAttribute('data-eval')),
    );
    expect([...listed].sort()).toEqual(['base', 'careless']);
    await page.click('#evals-view tr[data-eval="careless"] a.eval-link');
    await page.waitForSelector('#eval-report[data-eval="careless"]');
    expect(await page.textContent('#eval-summary')).toContain('3 passed, 1 failed, 0 errored');
    const failed = await page.$$eval('#eval-report tr[data-pass="false"]', (els: unknown[]) =>
      (els as Read[]).map((el) => el.getAttribute('data-row')),
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(/^bill-01/);
    const toolsCell = await page.$eval(
      `#eval-report tr[data-row="${failed[0]}"] td[data-scorer="${toolCallsMatch().name}"]`,
      (el: unknown) => (el as Read).getAttribute('title'),
    );
    expect(toolsCell).toMatch(/21/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'evals-report.png'), fullPage: true });
    await page.click('#evals-back');
    await page.waitForSelector('#evals-view');
    expect(errors).toEqual([]);
  });
});
