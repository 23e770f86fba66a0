import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { Agent, SessionRuntime } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { crashWhilePaying, key, reopenedPayer } from '../helpers/in-doubt-payment.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

const ask = { onInterrupted: 'ask' } as const;

/** Alice's `pay` stands paused on call `c1` in doubt; an inspector of the app's runtime. */
async function pausedInspector(options: { recordOnly?: boolean } = {}) {
  const path = await crashWhilePaying(temps, ask);
  const payer = await reopenedPayer(temps, path, ask);
  await payer.agent.resume(key.sessionId, { userId: key.userId });
  const runtime = options.recordOnly
    ? new SessionRuntime({
        store: payer.store,
        agent: new Agent({ name: 'no-model', model: new ScriptedModel([]) }),
      })
    : payer.agent.runtimeFor(payer.store);
  const inspector = await startInspector({ runtime, userId: key.userId, ...options });
  open.push(inspector);
  return { ...payer, page: inspectorClient(inspector) };
}

const errorOf = (json: unknown) => (json as { error: { code: string } }).error.code;

describe('the inspector: calls in doubt', () => {
  it('shows the in-doubt interruption with its calls; resolve-in-doubt applies the resolution, audited via the page', async () => {
    const { page, store, charges } = await pausedInspector();
    const shown = await page.get(`/api/sessions/${key.sessionId}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      session: {
        runStatus: {
          status: 'interrupted',
          interruption: 'in_doubt',
          callsInDoubt: [{ callId: 'c1', toolName: 'pay', arguments: { amount: 5 } }],
        },
      },
    });

    const version = (await store.load(key)).version;
    const path = `/api/sessions/${key.sessionId}/resolve-in-doubt`;
    for (const [body, status, code] of [
      [{}, 400, 'BAD_REQUEST'],
      [{ callId: 'c1', action: 'later' }, 400, 'BAD_REQUEST'],
      [{ callId: 'c1', action: 'result' }, 400, 'BAD_REQUEST'],
      [{ callId: 'c9', action: 'fail' }, 409, 'NOT_IN_DOUBT'],
    ] as const) {
      const answer = await page.post(path, body);
      expect([answer.status, errorOf(answer.json)], JSON.stringify(body)).toEqual([status, code]);
    }
    expect((await store.load(key)).version).toBe(version);

    const resolved = await page.post(path, { callId: 'c1', action: 'retry' });
    expect(resolved.status).toBe(200);
    expect(resolved.json).toMatchObject({ interrupted: false, output: 'ok: charged c1' });
    expect(charges).toEqual(['c1']);
    const audit = await store.readAudit({ userId: key.userId, kind: 'in_doubt' });
    expect(audit.entries.map((e) => [e.callId, e.via])).toEqual([['c1', 'page']]);
  });

  it('recordOnly: the resolution is recorded (held); the run goes on when the app resumes it', async () => {
    const { page, agent, charges } = await pausedInspector({ recordOnly: true });
    const path = `/api/sessions/${key.sessionId}/resolve-in-doubt`;
    const recorded = await page.post(path, { callId: 'c1', action: 'fail' });
    expect(recorded.json).toMatchObject({ recorded: true, callId: 'c1', action: 'fail' });
    const shown = await page.get(`/api/sessions/${key.sessionId}`);
    expect(shown.json).toMatchObject({ session: { runStatus: { status: 'interrupted' } } });
    const result = await agent.resume(key.sessionId, { userId: key.userId });
    expect(result.output).toMatch(
      /^error: Error: the outcome of this call of tool "pay" is unknown/,
    );
    expect(charges).toEqual([]);
  });
});
