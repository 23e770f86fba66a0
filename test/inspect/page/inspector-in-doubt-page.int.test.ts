import { describe, expect, it } from 'vitest';
import { startInspector } from '../../../src/inspect.js';
import { crashWhilePaying, key, reopenedPayer } from '../../helpers/in-doubt-payment.js';
import { useInspectorPages } from '../../helpers/inspector-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();
const ask = { onInterrupted: 'ask' } as const;

describe('inspector page in Chromium: calls in doubt', () => {
  it('shows the call in doubt with Retry, Fail and Record result; a bad result is refused, a good one ends the run', async () => {
    const path = await crashWhilePaying(temps, ask);
    const { agent, store, charges } = await reopenedPayer(temps, path, ask);
    await agent.resume(key.sessionId, { userId: key.userId });
    const inspector = await startInspector({
      runtime: agent.runtimeFor(store),
      userId: key.userId,
    });
    inspectors.push(inspector);
    const page = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(inspector.url);
    const row = `tr.session[data-session="${key.sessionId}"]`;
    await page.waitForSelector(`${row} .in-doubt-count`);
    expect(await page.textContent(`${row} .in-doubt-count`)).toBe('1 in doubt');
    await page.click(`tr.session[data-session="${key.sessionId}"]`);
    const call = '.in-doubt[data-call="c1"]';
    await page.waitForSelector(`${call} button[data-action="in-doubt-result"]`);
    expect(await page.textContent(call)).toContain('pay({"amount":5})');
    for (const action of ['in-doubt-retry', 'in-doubt-fail']) {
      expect(await page.$(`${call} button[data-action="${action}"]`)).not.toBeNull();
    }
    // Not JSON: said in the error box, nothing sent.
    await page.fill(`${call} input.in-doubt-result`, '{nope');
    await page.click(`${call} button[data-action="in-doubt-result"]`);
    await page.waitForSelector('#error:has-text("must be JSON")');
    expect((await store.load(key)).snapshot).toMatchObject({ value: { active: 'running' } });

    await page.fill(`${call} input.in-doubt-result`, '"charged by hand"');
    await page.click(`${call} button[data-action="in-doubt-result"]`);
    await page.waitForSelector('#action-result:has-text("charged by hand")');
    // The session is read again: nothing in doubt any more.
    await page.waitForSelector(call, { state: 'detached' });
    expect(charges).toEqual([]);
    const view = await agent.runtimeFor(store).getSession(key);
    expect(view.lastRun?.output).toBe('ok: charged by hand');
    expect(errors).toEqual([]);
  });
});
