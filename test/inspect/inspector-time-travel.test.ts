import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';
import { deskApp, refundWithRetry } from '../helpers/waterfall-fixtures.js';

const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

interface Frame {
  step: number;
  kind: string;
  label: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  changed: string[];
  added: { position: number; item: { type: string } }[];
  forkAt: number;
}

async function setup() {
  const temp = await temps.open();
  const app = deskApp(temp.store);
  const inspector = await startInspector({
    runtime: app.desk.runtimeFor(temp.store),
    userId: 'ann',
    agents: { desk: app.desk },
  });
  open.push(inspector);
  const client = inspectorClient(inspector);
  await refundWithRetry(app);
  const runId = ((await client.get('/api/sessions/refund-w')).json as { runs: { runId: string }[] })
    .runs[0]!.runId;
  return { temp, app, client, runId };
}

describe('inspector API: time travel', () => {
  it("steps through a run with the run's context before and after each step, rebuilt from the journal", async () => {
    const { client, runId } = await setup();
    const answer = await client.get(`/api/sessions/refund-w/runs/${runId}/steps`);
    expect(answer.status).toBe(200);
    const { frames } = answer.json as { frames: Frame[] };
    expect(frames.map((f) => `#${f.step} ${f.label}`)).toEqual([
      '#0 model → ask_billing',
      '#1 tool ask_billing',
      '#2 model answer',
    ]);
    const length = (f: Frame) => [f.before['historyLength'], f.after['historyLength']];
    expect(frames.map(length)).toEqual([
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
    expect(frames.map((f) => f.added.map((a) => `${a.position} ${a.item.type}`))).toEqual([
      ['1 tool_call'],
      ['2 tool_result'],
      ['3 message'],
    ]);
    // each step's after is the next one's before
    expect(frames[1]!.before).toEqual(frames[0]!.after);
    expect(frames[2]!.before).toEqual(frames[1]!.after);
    expect(frames[0]!.before).toMatchObject({ steps: 0, modelCalls: 0, openCalls: [] });
    expect(frames[0]!.after).toMatchObject({ modelCalls: 1, openCalls: ['call_1_0'] });
    expect(frames[2]!.after).toMatchObject({ modelCalls: 2, inputTokens: 130, outputTokens: 35 });
    expect([...frames[1]!.changed].sort()).toEqual([
      'historyLength',
      'openCalls',
      'steps',
      'toolCalls',
    ]);
    // a fork from a step never separates a call from its result
    expect(frames.map((f) => f.forkAt)).toEqual([1, 3, 3]);
  });

  it('a fork from a step shows its origin and the diff of the two histories', async () => {
    const { client, runId, app } = await setup();
    const { frames } = (await client.get(`/api/sessions/refund-w/runs/${runId}/steps`)).json as {
      frames: Frame[];
    };
    const fork = await client.post('/api/sessions/refund-w/fork', {
      newId: 'refund-w-2',
      at: frames[2]!.forkAt,
    });
    expect(fork.status).toBe(200);
    expect((await client.get('/api/sessions/refund-w/origin')).json).toEqual({ origin: null });
    await app.desk.run('status of o-8?', { sessionId: 'refund-w-2', userId: 'ann' });
    const origin = (await client.get('/api/sessions/refund-w-2/origin')).json as {
      origin: {
        parentId: string;
        shared: number;
        onlyHere: { position: number; item: { content?: string } }[];
        onlyParent: { position: number; item: { content?: string } }[];
      };
    };
    expect(origin.origin).toMatchObject({
      parentId: 'refund-w',
      shared: 3,
      length: 5,
      parentLength: 4,
    });
    expect(origin.origin.onlyParent.map((p) => [p.position, p.item.content])).toEqual([
      [3, 'desk: billing: order o-7 refunded'],
    ]);
    expect(origin.origin.onlyHere.map((p) => [p.position, p.item.content])).toEqual([
      [3, 'status of o-8?'],
      [4, 'desk heard: status of o-8?'],
    ]);
  });

  it('bad input gets a typed error and changes nothing stored', async () => {
    const { client, temp, runId } = await setup();
    const before = await dumpBackend(temp.store);
    const cases: [string, number, string][] = [
      ['/api/sessions/refund-w/runs/nope/steps', 404, 'RUN_NOT_FOUND'],
      [`/api/sessions/nope/runs/${runId}/steps`, 404, 'SESSION_NOT_FOUND'],
      ['/api/sessions/nope/origin', 404, 'SESSION_NOT_FOUND'],
      ['/api/sessions/refund-w/origin/x', 404, 'NOT_FOUND'],
    ];
    for (const [path, status, code] of cases) {
      const answer = await client.get(path);
      const got = (answer.json as { error: { code: string } }).error.code;
      expect([path, answer.status, got]).toEqual([path, status, code]);
    }
    const fork = await client.post('/api/sessions/refund-w/fork', { at: 2 });
    expect([fork.status, (fork.json as { error: { code: string } }).error.code]).toEqual([
      400,
      'FORK_POSITION_OUT_OF_RANGE',
    ]);
    expect(await dumpBackend(temp.store)).toEqual(before);
  });
});
