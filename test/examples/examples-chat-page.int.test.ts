import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PacedModel, shopScript } from '../../examples/chat-agent.js';
import { serveChatExample } from '../../examples/chat-server.js';
import { launchHeadlessChromium } from '../../scripts/headless-chromium.js';
import { deferred, type Deferred } from '../helpers/async.js';
import { seriousViolations } from '../helpers/axe-check.js';
import { TempStores } from '../helpers/temp-store.js';

/** Where this file writes its screenshots (git-ignored). */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/chat-page/', import.meta.url));

const temps = new TempStores();
const closings: (() => Promise<void>)[] = [];
let browser: Browser | undefined;
let hold: Deferred<void> = deferred();

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchHeadlessChromium();
});
afterAll(() => browser?.close());
afterEach(async () => {
  hold.resolve();
  await Promise.all(closings.splice(0).map((close) => close()));
  await temps.cleanupAll();
});

/**
 * The example's server over a temp LevelDB, its scripted shop model paced by the test: the
 * first word of each answer streams at once, the others wait until `hold` resolves.
 */
async function start() {
  hold = deferred();
  let words = 0;
  const model = new PacedModel(shopScript, async () => {
    if (++words > 1) await hold.promise;
  });
  const { store } = await temps.open();
  const chat = await serveChatExample({ model, store, port: 0 });
  closings.push(() => chat.close());
  const page = await browser!.newPage({ viewport: { width: 900, height: 800 } });
  closings.push(() => page.close());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(chat.url);
  return { model, page, errors };
}

/** Types a message and sends it with the keyboard. */
async function say(page: Page, text: string): Promise<void> {
  const box = page.getByLabel('Message');
  await box.fill(text);
  await box.press('Enter');
}

const messages = (page: Page, role: 'user' | 'assistant') =>
  page.locator(`li.message.${role}`).count();
const answerText = (page: Page) => page.locator('li.assistant p.text').allTextContents();

describe('examples/chat-server.ts: what it serves', () => {
  it('only its three files, under a CSP that allows its own script alone; the API wants the cookie', async () => {
    const { store } = await temps.open();
    const chat = await serveChatExample({
      model: new PacedModel(shopScript, async () => {}),
      store,
      port: 0,
    });
    closings.push(() => chat.close());
    const page = await fetch(chat.url);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(page.headers.get('set-cookie')).toMatch(
      /^chat_user=[0-9a-f-]{36}; HttpOnly; SameSite=Strict; Path=\/$/,
    );
    expect(await page.text()).toContain('<script type="module" src="/chat.js"></script>');
    const script = await fetch(new URL('chat.js', chat.url));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    for (const path of ['chat-page/chat.js', 'index.html', 'tsconfig.json', '..%2Fpackage.json']) {
      expect((await fetch(new URL(path, chat.url))).status).toBe(404);
    }
    const anonymous = await fetch(new URL('api/sessions/s1/messages', chat.url));
    expect(anonymous.status).toBe(401);
  });
});

describe('examples/chat-server.ts: the chat page in Chromium', () => {
  it('streams the answer; a reload mid-answer attaches to the run and it completes without another model call', async () => {
    const { model, page, errors } = await start();
    await say(page, 'What does coffee cost?');
    // The first word is on the page while the model holds the others: the text streams.
    await page.locator('li.assistant p.text', { hasText: 'One' }).waitFor();
    expect(await answerText(page)).toEqual(['One ']);
    expect(await page.locator('li.assistant .tool').textContent()).toContain('lookup_price');
    expect(model.callCount).toBe(2);

    await page.reload();
    // The reloaded page shows the history and follows the run in progress.
    await page.locator('li.assistant .tool .state', { hasText: 'Result' }).waitFor();
    await page.locator('#status', { hasText: 'Answering' }).waitFor();
    hold.resolve();
    await page.locator('#status', { hasText: 'The answer is complete.' }).waitFor();
    const whole =
      'One coffee costs $7.80 today. Ask me to order some and I will place the order once you approve it.';
    expect(await answerText(page)).toEqual([whole]);
    expect([await messages(page, 'user'), await messages(page, 'assistant')]).toEqual([1, 1]);
    expect(await page.locator('li.assistant .tool').count()).toBe(1);
    expect(model.callCount).toBe(2); // the reload called the model again: never

    // Reloaded once the run ended: the same conversation, from the history alone.
    await page.reload();
    await page.locator('li.assistant p.text', { hasText: 'Ask me to order' }).waitFor();
    expect(await answerText(page)).toEqual([whole]);
    expect(await page.locator('li.user p.text').allTextContents()).toEqual([
      'What does coffee cost?',
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}1-answer-after-reload.png`, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('shows Approve for the order tool (also after a reload); clicking it completes the run', async () => {
    const { model, page, errors } = await start();
    hold.resolve();
    await say(page, 'Order 2 coffee');
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    await page.locator('#status', { hasText: 'Waiting for your approval.' }).waitFor();
    expect(await page.locator('li.assistant .tool').textContent()).toContain(
      'place_order({"item":"coffee","quantity":2})',
    );
    expect(model.callCount).toBe(1);

    await page.reload();
    await approve.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}2-approval.png`, fullPage: true });
    await approve.click();
    await page.locator('#status', { hasText: 'The answer is complete.' }).waitFor();
    expect(await answerText(page)).toEqual([
      expect.stringMatching(/^Ordered 2 coffee for \$15\.60 \(order-.+\)\.$/),
    ]);
    expect(await page.locator('li.assistant .tool .state').textContent()).toContain('Result');
    expect(await approve.count()).toBe(0);
    expect(model.callCount).toBe(2);
    // The user is an HttpOnly cookie: nothing the page's script can read.
    const cookie = await page.evaluate(
      () => (globalThis as unknown as { document: { cookie: string } }).document.cookie,
    );
    expect(cookie).toBe('');
    await page.screenshot({ path: `${ARTIFACTS}3-approved.png`, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('Reject denies the call: the tool is not run and the model says so', async () => {
    const { model, page, errors } = await start();
    hold.resolve();
    await say(page, 'Buy 3 bread');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#status', { hasText: 'The answer is complete.' }).waitFor();
    expect(await page.locator('li.assistant .tool .state').textContent()).toBe('Rejected.');
    expect(await answerText(page)).toEqual([expect.stringMatching(/^I did not place the order/)]);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(model.callCount).toBe(2);
    expect(errors).toEqual([]);
  });
});
