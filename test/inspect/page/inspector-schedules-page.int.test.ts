import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInspector } from '../../../src/inspect.js';
import { axeViolations } from '../../helpers/axe-check.js';
import { ARTIFACTS, useInspectorPages } from '../../helpers/inspector-fixtures.js';
import { firedSchedules } from '../../helpers/schedule-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/** What the tests read of an element in the page (no DOM types in this project). */
interface Read {
  getAttribute(name: string): string | null;
  textContent: string | null;
  querySelectorAll(selector: string): Read[];
}

/** Each schedule row's cells as text. */
async function rows(page: Awaited<ReturnType<typeof newPage>>) {
  return page.$$eval('#schedules-view tr.schedule', (els: unknown[]) =>
    (els as Read[]).map((el) => [
      el.getAttribute('data-schedule'),
      ...[...el.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()),
    ]),
  );
}

/**
 * Alice's schedules `check`, `daily` and `weekly` (and bob's `bobs`): a real scheduler fired
 * Monday's ticks, `weekly`'s run completed and `daily`'s stopped on a model error.
 */
async function setup() {
  const { store } = await temps.open();
  const { agent, clock } = await firedSchedules(store);
  const inspector = await startInspector({
    runtime: agent.runtimeFor(store),
    userId: 'alice',
    operator: 'ops-anna',
  });
  inspectors.push(inspector);
  const page = await newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { store, clock, inspector, page, errors };
}

describe('inspector page in Chromium: schedules', () => {
  it("lists the user's schedules with next fire, last tick and its run; pauses, resumes; opens the tick's session", async () => {
    const { store, clock, inspector, page, errors } = await setup();
    await page.goto(inspector.url);
    await page.click('#schedules-link');
    await page.waitForSelector('#schedules-view tr.schedule');
    expect(await page.textContent('#schedules-view h2')).toBe('Schedules of user alice');
    const weeklyRun = await page.getAttribute(
      'tr.schedule[data-schedule="weekly"] .schedule-run a.schedule-session',
      'data-session',
    );
    expect(weeklyRun).toBe('weekly');
    const shown = await rows(page);
    expect(shown.map((r) => r[0])).toEqual(['check', 'daily', 'weekly']);
    const [check, daily, weekly] = shown;
    expect(weekly).toEqual([
      'weekly',
      expect.stringMatching(/^weeklyMonday digestmessage to weekly \(agent digest\)$/),
      'cron 0 9 * * 1 (Europe/Berlin)',
      '2027-03-29T09:00:00+02:00',
      '1',
      '2027-03-22T09:00:00+01:00started',
      expect.stringMatching(/^[0-9A-Z]{26}completed$/),
      'Pause',
    ]);
    expect(daily!.slice(5, 7)).toEqual([
      '2027-03-22T08:00:00+00:00started',
      expect.stringMatching(/^[0-9A-Z]{26}interrupted \(error\) MODEL_ERROR$/),
    ]);
    expect(check!.slice(2, 7)).toEqual([
      'every 900s',
      '2027-03-22T08:01:00+00:00',
      '0',
      'none yet',
      '-',
    ]);
    const text = (await page.textContent('#schedules-view')) ?? '';
    expect(text).not.toContain('bobs');
    expect(text).not.toContain('Send the digest');
    expect(await page.textContent('#error')).toBe('');
    await page.screenshot({ path: join(ARTIFACTS, 'schedules.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    // Pause: the row says paused and offers Resume; the store has it, audited from the page.
    await page.click('tr.schedule[data-schedule="weekly"] button[data-action="pause"]');
    await page.waitForSelector('tr.schedule[data-schedule="weekly"] button[data-action="resume"]');
    expect(await page.textContent('#schedule-result')).toBe('Paused weekly');
    expect(await page.textContent('tr.schedule[data-schedule="weekly"] .schedule-next')).toBe(
      'paused',
    );
    expect(await axeViolations(page)).toEqual([]);
    clock.set(Date.UTC(2027, 2, 30, 12)); // Tuesday: Monday's tick passed while paused
    await page.click('tr.schedule[data-schedule="weekly"] button[data-action="resume"]');
    await page.waitForSelector('tr.schedule[data-schedule="weekly"] button[data-action="pause"]');
    expect(await page.textContent('tr.schedule[data-schedule="weekly"] .schedule-next')).toBe(
      '2027-04-05T09:00:00+02:00',
    );
    const audit = await store.readAudit({ userId: 'alice', kind: 'schedule' });
    expect(
      audit.entries
        .filter((e) => e.action === 'pause' || e.action === 'resume')
        .map((e) => [e.action, e.via, e.by]),
    ).toEqual([
      ['pause', 'page', 'ops-anna'],
      ['resume', 'page', 'ops-anna'],
    ]);

    // The tick's run opens its session.
    await page.click('tr.schedule[data-schedule="weekly"] .schedule-run a.schedule-session');
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { getElementById(id: string): Read | null } }
        ).document.getElementById('session-id')?.textContent === 'weekly',
    );
    expect(errors).toEqual([]);
  });
});
