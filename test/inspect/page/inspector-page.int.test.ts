import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startInspector, type InspectorOptions } from '../../../src/inspect.js';
import { Agent, SessionRuntime, type SessionStore } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/testing.js';
import { approvalAgent, callTools } from '../../helpers/approval-agent.js';
import { deferred } from '../../helpers/async.js';
import { ARTIFACTS, useInspectorPages, opsAgent } from '../../helpers/inspector-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

/**
 * A store with the `ops` agent and the `assistant` agent (whose `send_email` needs approval);
 * the inspector over it runs with `ops`'s runtime unless `inspect` says otherwise.
 */
async function setup(
  inspect: (app: {
    store: SessionStore;
    ops: Agent;
    assistant: Agent;
  }) => Partial<InspectorOptions> = () => ({}),
) {
  const temp = await temps.open();
  const ops = opsAgent(temp.store);
  const assistant = approvalAgent(temp.store);
  const inspector = await startInspector({
    runtime: ops.agent.runtimeFor(temp.store),
    userId: 'ann',
    ...inspect({ store: temp.store, ops: ops.agent, assistant: assistant.agent }),
  });
  inspectors.push(inspector);
  const page = await newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { temp, ops, assistant, inspector, page, errors };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

const current = (page: Page, chart: 'session' | 'run') =>
  page.$$eval(`svg[data-chart="${chart}"] rect.state.current`, (rects: Attributed[]) =>
    rects.map((r) => r.getAttribute('data-state')),
  );

/** What the tests read of an element in the page (no DOM types in this project). */
type Attributed = { getAttribute(name: string): string | null };

describe('inspector page in Chromium', () => {
  it('lists a session; opening it draws both machines with the current state highlighted', async () => {
    const { ops, inspector, page, errors } = await setup();
    await ops.agent.run('hello there', { sessionId: 'greet', userId: 'ann' });
    const paused = await ops.agent.run('refund order o-7', {
      sessionId: 'refund-1',
      userId: 'ann',
    });
    expect(paused.interrupted).toBe(true);
    await page.goto(inspector.url);
    await page.waitForSelector('tr.session[data-session="refund-1"]');
    expect(
      await page.$$eval('tr.session', (rows: Attributed[]) =>
        rows.map((r) => r.getAttribute('data-session')),
      ),
    ).toEqual(expect.arrayContaining(['greet', 'refund-1']));
    await shot(page, '1-sessions');
    await page.click('tr.session[data-session="refund-1"]');
    await page.waitForSelector('svg[data-chart="run"] rect.current');
    expect(await current(page, 'session')).toEqual(['active', 'active.running']);
    expect(await current(page, 'run')).toEqual(['tools']);
    // nested states are drawn inside their parent
    expect(
      await page.$$eval(
        'svg[data-chart="run"] rect[data-state="approvals.checking"]',
        (r: unknown[]) => r.length,
      ),
    ).toBe(1);
    // the timeline nests the sub-agent's run under the call that started it
    expect(await page.textContent('#run .subrun')).toContain('ops › billing');
    expect(await page.textContent('.pending')).toContain('refund');
    expect(await page.textContent('.decision[data-decision="pending"]')).toContain('refund');
    await shot(page, '2-session-paused');
    // the status filter
    await page.selectOption('#status-filter', 'completed');
    await page.waitForSelector('tr.session', { state: 'detached' });
    expect(errors).toEqual([]);
  });

  it("shows a live run's state change while it runs, without reloading", async () => {
    const { ops, inspector, page, errors } = await setup();
    await ops.agent.run('hello', { sessionId: 'live', userId: 'ann' });
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="live"]');
    await page.waitForSelector('svg[data-chart="session"] rect.current[data-state="active.idle"]');
    await page.evaluate('window.marker = 1');
    const running = ops.agent.run('please wait', { sessionId: 'live', userId: 'ann' });
    await ops.entered();
    // the run stands in `tools` while its gate is closed: the page follows it live
    await page.waitForSelector('svg[data-chart="run"] rect.current[data-state="tools"]');
    await page.waitForSelector(
      'svg[data-chart="session"] rect.current[data-state="active.running"]',
    );
    await shot(page, '3-live-running');
    ops.open();
    expect((await running).output).toBe('ops: gate open');
    await page.waitForSelector('svg[data-chart="session"] rect.current[data-state="active.idle"]');
    await page.waitForSelector('svg[data-chart="run"] rect.current[data-state="completed"]');
    expect(await page.evaluate('window.marker')).toBe(1);
    expect(await page.textContent('#live-log')).toContain('ops: tool gate started');
    await shot(page, '4-live-done');
    expect(errors).toEqual([]);
  });

  it('approving a pending call from the page lets the run complete; fork and export work from the page', async () => {
    const { ops, inspector, page, temp, errors } = await setup();
    await ops.agent.run('refund order o-9', { sessionId: 'refund-2', userId: 'ann' });
    await page.goto(inspector.url);
    await page.click('tr.session[data-session="refund-2"]');
    await page.waitForSelector('.pending button[data-action="approve"]');
    await page.click('.pending button[data-action="approve"]');
    await page.waitForSelector('svg[data-chart="session"] rect.current[data-state="active.idle"]');
    expect(ops.seen.refunds).toEqual(['o']);
    const view = await ops.agent
      .runtimeFor(temp.store)
      .getSession({ sessionId: 'refund-2', userId: 'ann' });
    expect(view.lastRun?.status).toBe('completed');
    expect(view.lastRun?.output).toContain('refunded');
    await shot(page, '5-approved');

    await page.fill('#fork-id', 'refund-2-retry');
    await page.fill('#fork-at', '1');
    // A live refresh redraws the session while the user types: what was typed stays.
    await page.evaluate(
      "document.getElementById('fork-id').setAttribute('data-before', 'refresh')",
    );
    await ops.agent.run('thanks', { sessionId: 'refund-2', userId: 'ann' });
    await page.waitForSelector('#fork-id:not([data-before])');
    expect([await page.inputValue('#fork-id'), await page.inputValue('#fork-at')]).toEqual([
      'refund-2-retry',
      '1',
    ]);
    await page.click('button[data-action="fork"]');
    await page.waitForSelector('tr.session[data-session="refund-2-retry"]');
    const forked = await temp.store.load({ sessionId: 'refund-2-retry', userId: 'ann' });
    expect([forked.parentId, forked.historyLength]).toEqual(['refund-2', 1]);
    expect(await page.textContent('#action-result')).toBe(
      'forked refund-2 at history position 1 into refund-2-retry',
    );
    await shot(page, '6-forked');

    await page.click('button[data-action="export"]');
    await page.waitForSelector('#export-link');
    const exported = await page.getAttribute('body', 'data-exported');
    const model = ScriptedModel.fromReplay(exported);
    expect(model).toBeInstanceOf(ScriptedModel);
    await shot(page, '7-exported');
    expect(errors).toEqual([]);
  });

  it('record-only: Approve records the decision and says the run continues when the app resumes it; no Resume; the tool does not run', async () => {
    const { temp, assistant, inspector, page, errors } = await setup(({ store }) => ({
      // like `agentstate inspect` without --agent: a runtime with none of the app's tools
      runtime: new SessionRuntime({
        store,
        agent: new Agent({ name: 'cli', model: new ScriptedModel([]) }),
      }),
      recordOnly: true,
    }));
    const key = { sessionId: 'mail-1', userId: 'ann' };
    const email = { name: 'send_email', arguments: { to: 'a@x.io', body: 'hi' } };
    const paused = await assistant.agent.run(callTools(email), key);
    const callId = paused.interruptions[0]!.callId;
    await page.goto(inspector.url);
    expect(await page.textContent('#mode')).toBe(
      'decisions are recorded; the run continues when the app resumes it',
    );
    await page.click('tr.session[data-session="mail-1"]');
    await page.waitForSelector(`.pending[data-call="${callId}"] button[data-action="approve"]`);
    expect(await page.$('button[data-action="resume"]')).toBeNull();
    await shot(page, '8-record-only-pending');
    await page.click(`.pending[data-call="${callId}"] button[data-action="approve"]`);
    await page.waitForSelector('.pending', { state: 'detached' });
    expect(await page.textContent('#action-result')).toBe(
      `send_email (${callId}) approved · recorded: the run continues when the app resumes it`,
    );
    expect(await page.textContent('.decision[data-decision="approved"]')).toContain('send_email');
    // the run still stands in awaitingApproval: the page says why nothing is pending
    expect(await page.textContent(`.run-node[data-run="${paused.id}"] .held`)).toBe(
      'decided: the run continues when the app resumes it',
    );
    expect(await page.$('button[data-action="resume"]')).toBeNull();
    await shot(page, '9-record-only-approved');

    // Recorded, not run: the call waits, held, for the app's resume.
    expect(assistant.counters.executed).toEqual({});
    const runtime = assistant.agent.runtimeFor(temp.store);
    const view = await runtime.getSession(key);
    expect(view.run).toMatchObject({ state: 'awaitingApproval' });
    expect(view.run!.context.held).toBe(true);
    expect(view.run!.context.calls[0]).toMatchObject({ callId, decision: 'approved' });
    const audit = await runtime.auditLog({ userId: 'ann', kind: 'approval' });
    expect(audit.entries.map((e) => [e.callId, e.via])).toEqual([[callId, 'page']]);
    // The app's resume runs the recorded decision.
    expect((await assistant.agent.resume('mail-1', { userId: 'ann' })).output).toBe(
      'Done. send_email: sent to a@x.io',
    );
    expect(assistant.counters.executed).toEqual({ send_email: 1 });
    expect(errors).toEqual([]);
  });

  it("agents: approving from the page in the second agent's session runs that agent's tool to completion", async () => {
    const { temp, ops, assistant, inspector, page, errors } = await setup(({ ops, assistant }) => ({
      agents: { ops, assistant },
    }));
    const key = { sessionId: 'mail-2', userId: 'ann' };
    const email = { name: 'send_email', arguments: { to: 'b@x.io', body: 'hi' } };
    const paused = await assistant.agent.run(callTools(email), key);
    const callId = paused.interruptions[0]!.callId;
    await ops.agent.run('hello there', { sessionId: 'greet', userId: 'ann' });
    await page.goto(inspector.url);
    expect(await page.textContent('#mode')).toBe('runs with: ops, assistant');
    await page.click('tr.session[data-session="mail-2"]');
    await page.waitForSelector(`.pending[data-call="${callId}"] button[data-action="approve"]`);
    expect(await page.$('button[data-action="resume"]')).not.toBeNull();
    await page.click(`.pending[data-call="${callId}"] button[data-action="approve"]`);
    await page.waitForSelector('svg[data-chart="session"] rect.current[data-state="active.idle"]');
    await page.waitForSelector('svg[data-chart="run"] rect.current[data-state="completed"]');
    expect(assistant.counters.executed).toEqual({ send_email: 1 });
    const view = await assistant.agent.runtimeFor(temp.store).getSession(key);
    expect(view.lastRun).toMatchObject({
      status: 'completed',
      output: 'Done. send_email: sent to b@x.io',
    });
    await page.waitForSelector('#history >> text=Done. send_email: sent to b@x.io');
    expect(await page.textContent('#action-result')).toBe(
      `run ${paused.id} completed: Done. send_email: sent to b@x.io`,
    );
    expect(await page.$('.held')).toBeNull();
    await shot(page, '10-agents-approved');
    expect(errors).toEqual([]);
  });

  it('a late answer for a session opened before does not replace the one opened after: Approve acts on the session shown', async () => {
    const { temp, assistant, inspector, page, errors } = await setup(({ ops, assistant }) => ({
      agents: { ops, assistant },
    }));
    const mail = (to: string) => callTools({ name: 'send_email', arguments: { to, body: 'hi' } });
    await assistant.agent.run(mail('a@x.io'), { sessionId: 'mail-a', userId: 'ann' });
    await assistant.agent.run(mail('b@x.io'), { sessionId: 'mail-b', userId: 'ann' });
    await page.goto(inspector.url);
    // mail-a's detail answers only after mail-b, opened next, is on the page
    const isA = (url: URL) => url.pathname === '/api/sessions/mail-a';
    const asked = deferred();
    const release = deferred();
    await page.route(isA, async (route) => {
      asked.resolve();
      await release.promise;
      await route.continue();
    });
    await page.click('tr.session[data-session="mail-a"]');
    await asked.promise;
    await page.click('tr.session[data-session="mail-b"]');
    await page.waitForSelector('#session-id >> text=mail-b');
    const answered = page.waitForResponse((r) => isA(new URL(r.url())));
    release.resolve();
    await (await answered).finished();
    // three round trips of the page's own: what it does with mail-a's answer is done by then
    for (let i = 0; i < 3; i++) await page.evaluate("fetch('/api/info').then((r) => r.json())");
    expect(await page.textContent('#session-id')).toBe('mail-b');
    expect(await page.textContent('.pending')).toContain('b@x.io');
    await shot(page, '11-late-answer');
    await page.click('.pending button[data-action="approve"]');
    await page.waitForSelector('#action-result >> text=completed');
    const runtime = assistant.agent.runtimeFor(temp.store);
    const b = await runtime.getSession({ sessionId: 'mail-b', userId: 'ann' });
    expect(b.lastRun?.output).toBe('Done. send_email: sent to b@x.io');
    const a = await runtime.getSession({ sessionId: 'mail-a', userId: 'ann' });
    expect(a.run?.state).toBe('awaitingApproval');
    expect(assistant.counters.executed).toEqual({ send_email: 1 });
    expect(errors).toEqual([]);
  });
});
