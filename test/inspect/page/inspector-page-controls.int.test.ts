import { describe, expect, it } from 'vitest';
import { startInspector } from '../../../src/inspect.js';
import { useInspectorPages, opsAgent } from '../../helpers/inspector-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/** What the tests read of an element in the page (no DOM types in this project). */
type Attributed = { getAttribute(name: string): string | null };

describe("inspector page in Chromium: an all-users inspector's controls", () => {
  it("typing a user lists that user's sessions, 50 a page, `next` reading on", async () => {
    const temp = await temps.open();
    const ops = opsAgent(temp.store);
    for (let i = 0; i < 51; i++) {
      await ops.agent.run('hello', { sessionId: `b-${String(i).padStart(2, '0')}`, userId: 'bob' });
    }
    await ops.agent.run('hello', { sessionId: 'a-1', userId: 'ann' });
    const inspector = await startInspector({
      runtime: ops.agent.runtimeFor(temp.store),
      allUsers: true,
    });
    inspectors.push(inspector);
    const page = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const listed = () =>
      page.$$eval('tr.session', (rows: Attributed[]) =>
        rows.map((r) => r.getAttribute('data-session')),
      );

    await page.goto(inspector.url);
    // the anonymous bucket is a partition of its own: nothing in it
    await page.waitForSelector('#list-empty >> text=No sessions yet');
    await page.fill('input#user', 'bob');
    await page.press('input#user', 'Tab');
    await page.waitForSelector('tr.session');
    expect(await listed()).toHaveLength(50);
    await page.click('#sessions button[data-page="next"]');
    // A selector, not a waitForFunction string: the page's CSP forbids eval, which a string
    // predicate needs once it has to poll (a loaded machine).
    await page.waitForSelector('tr.session[data-session="b-50"]');
    expect(await listed()).toEqual(['b-50']);
    expect(await page.isDisabled('#sessions button[data-page="next"]')).toBe(true);

    await page.fill('input#user', 'ann');
    await page.press('input#user', 'Tab');
    await page.waitForSelector('tr.session[data-session="a-1"]');
    expect(await listed()).toEqual(['a-1']);
    await page.click('tr.session[data-session="a-1"]');
    await page.waitForSelector('#session-id:text("a-1")');
    expect(await page.textContent('#history')).toContain('ops heard: hello');
    expect(errors).toEqual([]);
  });
});
