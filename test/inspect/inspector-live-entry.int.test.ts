import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { liveStream } from '../helpers/inspector-client.js';
import { opsAgent } from '../helpers/inspector-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
const open: { close(): unknown }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await temps.cleanupAll();
});

type Frame = { sessionId: string; runId?: string; step?: number; text?: string };

describe('inspector live feed in words', () => {
  it("names each step of a run with its agent, its step and its tokens, and a sub-agent's steps with the sub-agent", async () => {
    const temp = await temps.open();
    const ops = opsAgent(temp.store);
    const inspector: InspectorHandle = await startInspector({
      runtime: ops.agent.runtimeFor(temp.store),
      userId: 'ann',
    });
    open.push(inspector);
    const reader = liveStream(inspector);
    open.push(reader);
    await reader.opened();
    const running = ops.agent.run('please wait', { sessionId: 'live', userId: 'ann' });
    await ops.entered();
    ops.open();
    await running;
    await ops.agent.run('refund order o-5', { sessionId: 'refund', userId: 'ann' });
    await reader.until((text) => text.includes('billing: run waits for a decision'));
    const frames = reader.text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Frame);
    const said = (sessionId: string) =>
      frames
        .filter((f) => f.sessionId === sessionId && f.text)
        .map((f): [string, number | undefined] => [f.text!, f.step]);
    const live = said('live').filter(([t]) => !t.startsWith('session'));
    expect(live).toEqual([
      ['ops: run started', undefined],
      ['ops: model called', 0],
      ['ops: model answered (10 in / 5 out), asks for gate', 0],
      ['ops: tool gate started', 1],
      ['ops: tool gate finished', 1],
      ['ops: model called', 2],
      ['ops: model answered (10 in / 5 out)', 2],
      ['ops: run completed', undefined],
    ]);
    const refund = said('refund').map(([t]) => t);
    expect(refund).toContain('ops: sub-agent billing started');
    expect(refund).toContain('billing: model answered (10 in / 5 out), asks for refund');
    expect(refund).toContain('billing: run waits for a decision');
    // the words name tools, never their arguments
    expect(JSON.stringify(refund)).not.toContain('o-5');
  });
});
