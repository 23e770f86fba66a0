import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromPromise, setup } from 'xstate';
import { z } from 'zod';
import type { Page } from 'playwright-core';
import { startInspector } from '../../../src/inspect.js';
import { Agent, tool, workflows, type SessionStore } from '../../../src/index.js';
import { FakeClock, ScriptedModel } from '../../../src/testing.js';
import { until } from '../../helpers/async.js';
import { axeViolations } from '../../helpers/axe-check.js';
import { ARTIFACTS, useInspectorPages } from '../../helpers/inspector-fixtures.js';
import { lastResult } from '../../helpers/sub-agent-fixtures.js';

const { temps, inspectors, newPage } = useInspectorPages();

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the tests read of an element in the page (no DOM types in this project). */
type Attributed = { getAttribute(name: string): string | null; textContent: string | null };

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (els: Attributed[]) => els.map((e) => (e.textContent ?? '').trim()));
const attrs = (page: Page, selector: string, name: string) =>
  page.$$eval(
    selector,
    (els: Attributed[], n: string) => els.map((e) => e.getAttribute(n) ?? ''),
    name,
  );

/**
 * The order workflow: a validation step, an agent that drafts a refund a human approves (a
 * linked session), three days to approve before it escalates, an idempotent payment step.
 */
function orderWorkflows(store: SessionStore, clock: FakeClock) {
  const paid: string[] = [];
  const proposeRefund = tool({
    name: 'propose_refund',
    description: 'Proposes a refund; a human approves it',
    parameters: z.object({ orderId: z.string(), amountUsd: z.number() }),
    needsApproval: true,
    execute: ({ orderId, amountUsd }) => `refund of $${amountUsd} for ${orderId}`,
  });
  const drafter = new Agent({
    name: 'drafter',
    store,
    clock,
    model: new ScriptedModel((request) =>
      lastResult(request) !== undefined
        ? { text: `Drafted the ${lastResult(request)}.` }
        : { toolCalls: [{ name: 'propose_refund', arguments: { orderId: 'o-7', amountUsd: 40 } }] },
    ),
    tools: [proposeRefund],
  });
  const steps = {
    validate: fromPromise(async () => ({ ok: true })),
    pay: fromPromise<string, { orderId: string }>(async ({ input }) => {
      paid.push(input.orderId);
      return `tx-${input.orderId}`;
    }),
  };
  const machine = setup({
    types: { context: {} as { orderId: string } },
    actors: { ...steps, drafter: drafter.asActor() },
    delays: { approvalTimeout: 3 * DAY_MS },
  }).createMachine({
    id: 'order',
    context: { orderId: 'o-7' },
    initial: 'validating',
    states: {
      validating: { invoke: { src: 'validate', onDone: 'drafting', onError: 'rejected' } },
      drafting: {
        invoke: {
          src: 'drafter',
          input: { input: 'Draft a refund of $40 for order o-7' },
          onDone: 'paying',
          onError: 'escalated',
        },
        after: { approvalTimeout: 'escalated' },
      },
      escalated: { on: { MANAGER_DECISION: 'paying' } },
      paying: {
        invoke: {
          src: 'pay',
          input: ({ context }) => ({ orderId: context.orderId }),
          onDone: 'done',
        },
      },
      rejected: { type: 'final' },
      done: { type: 'final' },
    },
  });
  const orders = workflows(machine, {
    name: 'orders',
    store,
    clock,
    steps,
    agents: { drafter },
  });
  return { orders, drafter, paid };
}

/**
 * The order `o-7` of user `shop`, started: validated, now in `drafting`, where its agent's linked
 * session waits for a human to approve the refund; an inspector on the page, the instance open.
 */
async function orderWaiting() {
  const temp = await temps.open();
  // (the clock stands still: the three days to approve never pass here)
  const { orders, drafter, paid } = orderWorkflows(temp.store, new FakeClock());
  const started = await orders.start('o-7', { userId: 'shop' });
  const linked = started.links.find((l) => l.kind === 'agent');
  expect(linked).toBeDefined();
  const runtime = drafter.runtimeFor(temp.store);
  await until(
    async () =>
      (await runtime.getSession({ sessionId: linked!.id, userId: 'shop' })).runStatus?.status ===
      'awaitingApproval',
    'the refund to wait for approval',
  );
  const inspector = await startInspector({ runtime, userId: 'shop', workflows: [orders] });
  inspectors.push(inspector);
  const page = await newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(inspector.url);
  await page.click('tr.workflow[data-workflow="o-7"]');
  await page.waitForSelector(`${CHART} g.edge.taken`, { state: 'attached' });
  return { orders, paid, page, errors, linkedId: linked!.id };
}

const CHART = 'svg[data-chart="workflow"]';
const NESTED = '.nested[data-state="drafting"] li.nested-session';

describe('the inspector page: workflow instances in Chromium', () => {
  it("draws the order workflow's chart with its transitions and its current state, the path it took, and its agent session under the state that invoked it, waiting", async () => {
    const { orders, page, errors, linkedId } = await orderWaiting();
    const chart = CHART;
    // The app's chart: its states from the definition, its transitions labelled with events.
    expect(await attrs(page, `${chart} g.state-node`, 'data-state')).toEqual(
      expect.arrayContaining(['validating', 'drafting', 'escalated', 'paying', 'rejected', 'done']),
    );
    const labels = await texts(page, `${chart} g.edge text.edge-label`);
    expect(labels).toEqual(
      expect.arrayContaining(['done', 'error', 'after(approvalTimeout)', 'MANAGER_DECISION']),
    );
    expect(
      await page.$$eval(`${chart} g.edge path`, (p: unknown[]) => p.length),
    ).toBeGreaterThanOrEqual(7);
    expect(await texts(page, `${chart} g.state-node[data-state="drafting"] text`)).toContain(
      'invokes drafter',
    );
    // Where it stands, and the way it came: validating's step ended, into drafting.
    expect(await attrs(page, `${chart} rect.state.current`, 'data-state')).toEqual(['drafting']);
    expect(await attrs(page, `${chart} g.edge.taken`, 'data-to')).toEqual(
      expect.arrayContaining(['validating', 'drafting']),
    );
    expect(await texts(page, '#workflow-path button.hop')).toEqual([
      expect.stringMatching(/ · xstate\.init \(start\) → validating$/),
      expect.stringMatching(/ · xstate\.done\.actor\.0\.order\.validating \(step\) → drafting$/),
    ]);
    expect(await texts(page, '#workflow-steps li')).toEqual([
      expect.stringMatching(/^validate in validating · done/),
    ]);
    // Its durable timer: three days to approve, from the host's clock.
    expect(await texts(page, '#workflow-timers li')).toEqual([
      'after(approvalTimeout) due 2026-01-04 00:00:00',
    ]);
    // The agent session it invoked, under the state that invoked it, waiting for a human.
    expect(
      await page.getAttribute(`${chart} g.state-node[data-state="drafting"]`, 'aria-label'),
    ).toContain('1 agent session(s)');
    expect(await page.getAttribute(NESTED, 'data-session')).toBe(linkedId);
    expect(await page.textContent(`${NESTED} .pending`)).toContain('propose_refund');
    // Sessions and instances are listed apart: the agent's session is a session, the order not.
    expect(await attrs(page, 'tr.session', 'data-session')).toEqual([linkedId]);
    expect(await page.textContent('#error')).toBe('');
    await page.screenshot({ path: join(ARTIFACTS, 'workflow-waiting.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    // Time travel: back to the start, and what changed then.
    await page.click('#workflow-path button.hop[data-hop="0"]');
    expect(await attrs(page, `${chart} rect.state.current`, 'data-state')).toEqual(['validating']);
    expect(await texts(page, '#travel li')).toEqual([
      'state: (start) → validating',
      'entered: validating',
    ]);
    await page.click('#workflow-path button.hop[data-hop="1"]');
    expect(await texts(page, '#travel li')).toEqual([
      'state: validating → drafting',
      'left: validating',
      'entered: drafting',
      'step validate done: {"ok":true}',
      `invoked agent session ${linkedId}`,
    ]);
    await page.click('button:has-text("back to now")');
    expect(await attrs(page, `${chart} rect.state.current`, 'data-state')).toEqual(['drafting']);

    // The nested session opens in the session view.
    await page.click(`${NESTED} a.session-link`);
    await page.waitForSelector('svg[data-chart="session"]', { state: 'attached' });
    expect(await page.textContent('#session-id')).toBe(linkedId);
    expect(await page.textContent('#session-workflow')).toContain('workflow instance o-7');
    // and leads back to the instance
    await page.click('#session-workflow a.workflow-link');
    await page.waitForSelector(`${CHART} rect.state.current[data-state="drafting"]`, {
      state: 'attached',
    });
    expect(errors).toEqual([]);
    await orders.close();
  });
  it('approves the call its agent waits for from the page, through the host: the workflow moves on to paying and done', async () => {
    const { orders, paid, page, errors } = await orderWaiting();
    await page.click(`${NESTED} .pending button[data-action="approve"]`);
    await page.waitForSelector('#action-result:has-text("approved")');
    await until(
      async () => (await orders.get('o-7', { userId: 'shop' })).status === 'completed',
      'the order to complete',
    );
    expect(paid).toEqual(['o-7']);
    await page.click('tr.workflow[data-workflow="o-7"]');
    await page.waitForSelector(`${CHART} rect.state.current[data-state="done"]`, {
      state: 'attached',
    });
    expect(await attrs(page, `${CHART} g.edge.taken`, 'data-to')).toEqual(
      expect.arrayContaining(['validating', 'drafting', 'paying', 'done']),
    );
    expect(await texts(page, '#workflow-steps li')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^pay in paying · done/)]),
    );
    await page.screenshot({ path: join(ARTIFACTS, 'workflow-done.png'), fullPage: true });
    expect(errors).toEqual([]);
    await orders.close();
  });
});
