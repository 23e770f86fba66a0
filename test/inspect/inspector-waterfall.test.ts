import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import type { JournalEntry } from '../../src/store.js';
import { Agent, changeSystemPrompt, clearSession, type Item } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { summaryMessage } from '../../src/items/summary-message.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import {
  deskApp,
  longConversation,
  redactSecret,
  refundThatFails,
  refundWithRetry,
  SECRET,
} from '../helpers/waterfall-fixtures.js';
import type { WaterfallBar } from '../../src/inspect/run-waterfall.js';

const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

/** A bar as the API sends it (JSON of the server's own type). */
type Bar = WaterfallBar;

async function setup() {
  const temp = await temps.open();
  const app = deskApp(temp.store);
  const inspector = await startInspector({
    runtime: app.desk.runtimeFor(temp.store),
    userId: 'ann',
    agents: { desk: app.desk },
    redact: redactSecret,
  });
  open.push(inspector);
  return { temp, app, client: inspectorClient(inspector) };
}

const runOf = async (client: ReturnType<typeof inspectorClient>, sessionId: string) =>
  ((await client.get(`/api/sessions/${sessionId}`)).json as { runs: { runId: string }[] }).runs[0]!
    .runId;

const errorCode = (json: unknown) => (json as { error: { code: string } }).error.code;

describe('inspector API: waterfall and what the model saw', () => {
  it('draws a run with a sub-agent, an approval wait and a retried model call to scale', async () => {
    const { app, client } = await setup();
    const { failed, done } = await refundWithRetry(app);
    expect(failed).toMatchObject({ interrupted: true, interruptionReason: 'error' });
    expect(done.interrupted).toBe(false);
    const runId = await runOf(client, 'refund-w');
    const answer = await client.get(`/api/sessions/refund-w/runs/${runId}/waterfall`);
    expect(answer.status).toBe(200);
    const { bars, start, end } = answer.json as { bars: Bar[]; start: number; end: number };
    const rows = bars.map((b) => `${'  '.repeat(b.depth)}${b.kind} ${b.label}`);
    expect(rows).toEqual([
      'run desk (completed)',
      'model #0 model → ask_billing',
      'tool #1 tool ask_billing',
      '  run desk › billing (completed)',
      '  model #0 model → refund',
      '  approval #2 approval check',
      '  approval-wait waits for approval: refund',
      '  tool #1 tool refund',
      '  model #3 model answer',
      'model #2 model answer',
    ]);
    const ms = (b: Bar) => b.end - b.start;
    const [, firstModel, call, child, childModel, , wait, refund, , retried] = bars;
    // the sub-agent's call spans its child run
    expect([call!.start, call!.end]).toEqual([child!.start, child!.end]);
    // durations to scale: each model call took 200 ms, the tool 50 ms, the wait 5 s
    expect([ms(firstModel!), ms(childModel!), ms(refund!), ms(wait!)]).toEqual([
      200, 200, 50, 5000,
    ]);
    expect(wait!.open).toBeUndefined();
    // the retried call: one retry, its failed attempt and the wait before it marked
    expect(retried).toMatchObject({ retries: 1, inputTokens: 120, outputTokens: 30 });
    expect(retried!.start - retried!.retryFrom!).toBe(1200); // failed 200 ms call + 1 s wait
    expect(bars.filter((b) => b.retries)).toHaveLength(1);
    expect(firstModel).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    expect([start, end]).toEqual([firstModel!.start, retried!.end]);
  });

  it("nests a sub-agent run still waiting under its call's bar, which spans it", async () => {
    const { app, client } = await setup();
    await app.desk.run('refund order o-7', { sessionId: 'refund-w', userId: 'ann' });
    app.clock.advance(3_000);
    const runId = await runOf(client, 'refund-w');
    const { bars } = (await client.get(`/api/sessions/refund-w/runs/${runId}/waterfall`)).json as {
      bars: Bar[];
    };
    expect(bars.map((b) => `${b.depth} ${b.kind} ${b.label}`).slice(0, 4)).toEqual([
      '0 run desk (tools)',
      '0 model #0 model → ask_billing',
      '0 tool tool ask_billing',
      '1 run desk › billing (awaitingApproval)',
    ]);
    const [, , call, child] = bars;
    expect(call).toMatchObject({ open: true, start: child!.start, end: child!.end });
    // the child still waits for a decision: 3 s and counting
    expect(child!.end - child!.start).toBeGreaterThanOrEqual(3000);
  });

  it('draws a model call that failed and stopped the run red, with its reason', async () => {
    const { app, client } = await setup();
    await refundThatFails(app);
    const runId = await runOf(client, 'refund-w');
    const { bars } = (await client.get(`/api/sessions/refund-w/runs/${runId}/waterfall`)).json as {
      bars: Bar[];
    };
    const failed = bars.filter((b) => b.error);
    expect(failed).toEqual([
      expect.objectContaining({ depth: 0, step: 2, label: '#2 failed', kind: 'step' }),
    ]);
    expect(failed[0]!.error).toContain('upstream overloaded');
    // the run is still the current one: its finished sub-agent run is nested under its call
    expect(bars.map((b) => `${b.depth} ${b.label}`).slice(0, 4)).toEqual([
      '0 desk (interrupted)',
      '0 #0 model → ask_billing',
      '0 #1 tool ask_billing',
      '1 desk › billing (completed)',
    ]);
  });

  it('rebuilds what a model call saw after the context window, with its tools and settings, redacted', async () => {
    const { app, client } = await setup();
    const key = await longConversation(app);
    const runId = await runOf(client, key.sessionId);
    const answer = await client.get(`/api/sessions/long-w/runs/${runId}/steps/0/request`);
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(SECRET);
    const view = answer.json as {
      recorded: boolean;
      source: { kind: string; start: number; end: number; historyLength: number };
      items: { position: number; item: { content?: string } }[];
      tools: { name: string; parameters?: { properties: Record<string, unknown> } }[];
      settings: Record<string, unknown>;
      answer: { text: string };
    };
    expect(view.recorded).toBe(true);
    // 11 items when it was asked (6 user messages, 5 answers); the window kept the last 4
    expect(view.source).toEqual({ kind: 'history', start: 7, end: 11, from: 0, historyLength: 12 });
    expect(view.items.map((i) => i.position)).toEqual([7, 8, 9, 10]);
    expect(view.items.map((i) => i.item.content)).toEqual([
      'desk heard: turn 4 words',
      'turn 5 words',
      'desk heard: turn 5 words',
      'turn 6 my key is [REDACTED]',
    ]);
    expect(view.tools.map((t) => t.name)).toEqual(['ask_billing', 'lookup']);
    expect(Object.keys(view.tools[1]!.parameters!.properties)).toEqual(['order']);
    expect(view.settings).toEqual({ temperature: 0.3 });
    expect(view.answer.text).toBe('desk heard: turn 6 my key is [REDACTED]');
  });

  it("shows a sub-agent run's conversation: its input and its earlier steps", async () => {
    const { app, client } = await setup();
    await refundWithRetry(app);
    const runId = await runOf(client, 'refund-w');
    const { bars } = (await client.get(`/api/sessions/refund-w/runs/${runId}/waterfall`)).json as {
      bars: Bar[];
    };
    const child = bars.find((b) => b.depth === 1 && b.kind === 'model' && b.step === 3)!;
    const view = (await client.get(`/api/sessions/refund-w/runs/${child.runId}/steps/3/request`))
      .json as { source: { kind: string }; items: { item: { type: string } }[]; tools: unknown[] };
    expect(view.source).toEqual({ kind: 'sub-run' });
    expect(view.items.map((i) => i.item.type)).toEqual(['message', 'tool_call', 'tool_result']);
  });

  it('rebuilds a summarized window exactly as the model got it, and journals a few bytes per step whatever the history', async () => {
    const temp = await temps.open();
    const model = new ScriptedModel(
      (request) => {
        const last = request.items.at(-1);
        return { text: `heard: ${last?.type === 'message' ? JSON.stringify(last.content) : ''}` };
      },
      { recordCalls: true },
    );
    const agent = new Agent({
      name: 'notes',
      model,
      store: temp.store,
      history: { maxTokens: 40, keepTokens: 20, summarize: (items) => `${items.length} earlier` },
    });
    const key = { sessionId: 'sum', userId: 'ann' };
    const runIds: string[] = [];
    for (let i = 1; i <= 8; i++) runIds.push((await agent.run(`turn ${i} words`, key)).id);
    const inspector = await startInspector({
      runtime: agent.runtimeFor(temp.store),
      userId: 'ann',
    });
    open.push(inspector);
    const view = (
      await inspectorClient(inspector).get(
        `/api/sessions/sum/runs/${runIds.at(-1)!}/steps/0/request`,
      )
    ).json as { items: { role?: string; item: Item }[] };
    expect(view.items[0]!.role).toBe('summary');
    const asSent = view.items.map(({ item }) =>
      item.type === 'summary' ? summaryMessage(item) : item,
    );
    expect(asSent).toEqual(model.calls.at(-1)!.items);
    // what each model step journals about its request does not grow with the history
    const sizes = await Promise.all(
      runIds.map(async (runId) => {
        const [entry] = await temp.store.readRunJournal(key, runId);
        return JSON.stringify((entry!.output as { request: unknown }).request).length;
      }),
    );
    // a range and a summary's position at most: a few numbers, however long the history
    expect(Math.max(...sizes)).toBeLessThan(80);
    expect(sizes.at(-1)).toBe(sizes.at(-3));
  });

  it('serves the instructions each request was sent, as journaled, and where the model started reading after a clear', async () => {
    const temp = await temps.open();
    const agent = new Agent({
      name: 'notes',
      model: new ScriptedModel(() => ({ text: 'ok' }), { recordCalls: true }),
      store: temp.store,
      instructions: 'Be brief.',
    });
    const key = { sessionId: 'prompted', userId: 'ann' };
    const runtime = agent.runtimeFor(temp.store);
    const inspector = await startInspector({ runtime, userId: 'ann' });
    open.push(inspector);
    // (the endpoint serves the session's current or last run: each is read after it ran)
    const request = async (runId: string) =>
      (await inspectorClient(inspector).get(`/api/sessions/prompted/runs/${runId}/steps/0/request`))
        .json as { instructions?: string; source: { start: number; end: number; from: number } };
    const first = await request((await agent.run('one', key)).id);
    expect(first.instructions).toBe('Be brief.');
    expect(first.source).toMatchObject({ start: 0, end: 1, from: 0 });
    // the session's own system prompt wins from the next request on (the definition still
    // says the first)
    await runtime.execute(key, changeSystemPrompt('Answer in French.'));
    const second = await request((await agent.run('two', key)).id);
    expect(second.instructions).toBe('Answer in French.');
    await runtime.execute(key, clearSession());
    const third = await request((await agent.run('three', key)).id);
    // two runs of two items before the clear: the third run's model read from position 4 on
    expect(third.source).toMatchObject({ start: 4, end: 5, from: 4 });
  });

  it('an answer journaled before requests were recorded reads as not recorded', async () => {
    const { app, client, temp } = await setup();
    const key = await longConversation(app);
    const runId = await runOf(client, key.sessionId);
    const [entry] = (await temp.store.readRunJournal(key, runId)).filter((e) => e.step === 0);
    const { request: _dropped, ...output } = entry!.output as Record<string, unknown>;
    const old: JournalEntry = { ...entry!, output };
    const record = await temp.store.load(key);
    await temp.store.save({ record, items: [], journal: [old] });
    const answer = await client.get(`/api/sessions/long-w/runs/${runId}/steps/0/request`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ recorded: false, answer: { toolCalls: [] } });
    expect(answer.json).not.toHaveProperty('items');
  });

  it('bad input gets a typed 400 or 404 and changes nothing stored', async () => {
    const { app, client, temp } = await setup();
    await refundWithRetry(app);
    const runId = await runOf(client, 'refund-w');
    const before = await dumpBackend(temp.store);
    const base = `/api/sessions/refund-w/runs/${runId}`;
    const cases: [string, number, string][] = [
      [`${base}/steps/abc/request`, 400, 'BAD_REQUEST'],
      [`${base}/steps/-1/request`, 400, 'BAD_REQUEST'],
      [`${base}/steps/1.5/request`, 400, 'BAD_REQUEST'],
      [`${base}/steps/1/request`, 400, 'NOT_A_MODEL_STEP'],
      [`${base}/steps/99/request`, 404, 'STEP_NOT_FOUND'],
      [`${base}/steps/0/answer`, 404, 'NOT_FOUND'],
      [`${base}/waterfall/x`, 404, 'NOT_FOUND'],
      [`/api/sessions/refund-w/runs/nope/steps/0/request`, 404, 'RUN_NOT_FOUND'],
      [`/api/sessions/nope/runs/${runId}/waterfall`, 404, 'SESSION_NOT_FOUND'],
    ];
    for (const [path, status, code] of cases) {
      const answer = await client.get(path);
      expect([path, answer.status, errorCode(answer.json)]).toEqual([path, status, code]);
    }
    expect(await dumpBackend(temp.store)).toEqual(before);
  });
});
