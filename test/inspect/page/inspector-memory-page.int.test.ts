import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInspector } from '../../../src/inspect.js';
import { Agent, openMemory } from '../../../src/index.js';
import { FakeClock, ScriptedModel, scriptedEmbedder } from '../../../src/testing.js';
import { ARTIFACTS, useInspectorPages } from '../../helpers/inspector-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

const T0 = Date.UTC(2026, 10, 20, 9, 30);

/** What the tests read of an element in the page (no DOM types in this project). */
interface Read {
  getAttribute(name: string): string | null;
  textContent: string | null;
}

/**
 * Alice said she is allergic to peanuts in `s1` and asks about a snack in `s2`: recall brings
 * `s1` back into the model's request. Bob said the same in `b1`. Alice also has a fact in
 * resource p7 and a working memory.
 */
async function setup() {
  const temp = await temps.open();
  const clock = new FakeClock(T0);
  const embedder = scriptedEmbedder();
  const model = new ScriptedModel(() => ({ text: 'noted' }));
  const agent = new Agent({
    name: 'assistant',
    model,
    store: temp.store,
    clock,
    memory: { embedder },
  });
  await agent.run('I am allergic to peanuts', { sessionId: 's1', userId: 'alice' });
  await agent.run('I am allergic to peanuts, says bob', { sessionId: 'b1', userId: 'bob' });
  const memory = openMemory(temp.store, { embedder, clock });
  await memory.remember({
    userId: 'alice',
    resource: 'p7',
    text: 'Launch on Friday',
    id: 'fact:p7',
  });
  await memory.updateWorkingMemory({ userId: 'alice' }, { append: 'Name: Alice' });
  clock.advance(3_600_000);
  await agent.run('Which peanuts snack is safe for me, allergic as I am?', {
    sessionId: 's2',
    userId: 'alice',
  });
  const inspector = await startInspector({
    runtime: agent.runtimeFor(temp.store),
    userId: 'alice',
  });
  inspectors.push(inspector);
  const page = await newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { inspector, page, errors };
}

describe('inspector page in Chromium: memory across sessions', () => {
  it('shows the memories a model step recalled with their scores and source, and the user’s memory view', async () => {
    const { inspector, page, errors } = await setup();
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="s2"]');
    await page.waitForSelector('#waterfall button.wf-model');
    await page.click('#waterfall button.wf-model');
    await page.waitForSelector('.model-request[data-recorded="true"]');
    const recalled = await page.$$eval('.request-memory tr.recalled-memory', (els: unknown[]) =>
      (els as (Read & { querySelector(s: string): Read | null })[]).map((el) => ({
        id: el.getAttribute('data-memory'),
        score: el.querySelector('.recalled-score')!.textContent,
        text: el.querySelector('.recalled-text')!.textContent,
        session: el.querySelector('.recalled-session')?.getAttribute('data-session'),
      })),
    );
    expect(recalled.map(({ id, text, session }) => ({ id, text, session }))).toEqual([
      { id: 'msg:s1:0', text: 'I am allergic to peanuts', session: 's1' },
    ]);
    expect(recalled[0]!.score).toMatch(/^0\.\d{3}$/);
    expect(Number(recalled[0]!.score)).toBeGreaterThan(0.3);
    const request = (await page.textContent('.model-request')) ?? '';
    expect(request).toContain('working memory version 1 in the instructions');
    expect(request).not.toContain('says bob');
    // the memories' message is among the items sent, just before the newest user message
    const sent = await page.$$eval('.model-request .sent-item', (els: unknown[]) =>
      (els as Read[]).map((el) => el.textContent ?? ''),
    );
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^recalled memories system: Memories from earlier conversations/);
    expect(sent[0]).toContain('conversation s1] I am allergic to peanuts');
    expect(sent[1]).toBe('#0 user: Which peanuts snack is safe for me, allergic as I am?');
    await page.screenshot({ path: join(ARTIFACTS, 'memory-recalled.png'), fullPage: true });

    // the user's memory: from the session, its scopes, working memory and memories
    await page.click('#memory-link');
    await page.waitForSelector('#memory-view tr.memory');
    const listed = await page.$$eval('#memory-view tr.memory', (els: unknown[]) =>
      (els as (Read & { querySelectorAll(s: string): Read[] })[]).map((el) =>
        [...el.querySelectorAll('td')].map((td) => td.textContent),
      ),
    );
    expect(listed).toEqual([
      [
        'Which peanuts snack is safe for me, allergic as I am?',
        'message (user)',
        '-',
        's2',
        '2026-11-20 10:30:00',
      ],
      ['Launch on Friday', 'fact', 'p7', 'saved by the app', '2026-11-20 09:30:00'],
      ['I am allergic to peanuts', 'message (user)', '-', 's1', '2026-11-20 09:30:00'],
    ]);
    const view = (await page.textContent('#memory-view')) ?? '';
    expect(view).toContain('Memory of user alice');
    expect(view).toContain('Working memory · (own scope) · version 1');
    expect(await page.textContent('#memory-view .working-memory pre')).toBe('Name: Alice');
    expect(view).not.toContain('says bob');
    // a scope narrows the list; a source session opens that session
    await page.click('#memory-view a.memory-scope >> text=p7');
    await page.waitForSelector('#memory-all');
    expect(
      await page.$$eval('#memory-view tr.memory', (els: unknown[]) =>
        (els as Read[]).map((el) => el.getAttribute('data-memory')),
      ),
    ).toEqual(['fact:p7']);
    await page.click('#memory-all');
    await page.waitForSelector('#memory-view a.memory-session[data-session="s1"]');
    await page.screenshot({ path: join(ARTIFACTS, 'memory-view.png'), fullPage: true });
    await page.click('#memory-view a.memory-session[data-session="s1"]');
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { getElementById(id: string): Read | null } }
        ).document.getElementById('session-id')?.textContent === 's1',
    );
    expect(errors).toEqual([]);
  });
});
