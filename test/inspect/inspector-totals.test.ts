import { afterEach, describe, expect, it } from 'vitest';
import { startInspector, type InspectorHandle } from '../../src/inspect.js';
import { inspectorClient } from '../helpers/inspector-client.js';
import { annWaitsForRefund } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
const open: InspectorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((i) => i.close()));
  await temps.cleanupAll();
});

type Usage = { inputTokens: number; outputTokens: number };
type Node = { usage: Usage; timeline: { model?: { usage: Usage } }[]; children: Node[] };

/** The tokens of every model step of a run tree, its sub-agent runs included. */
const stepTokens = (node: Node): [number, number] =>
  node.children.map(stepTokens).reduce(
    ([i, o], [ci, co]) => [i + ci, o + co],
    node.timeline.reduce<[number, number]>(
      ([i, o], s) => [
        i + (s.model?.usage.inputTokens ?? 0),
        o + (s.model?.usage.outputTokens ?? 0),
      ],
      [0, 0],
    ),
  );

describe('inspector totals', () => {
  it('the list, the session and its run count the same tokens while a sub-agent waits for a decision', async () => {
    const { runtime } = await annWaitsForRefund(temps);
    const inspector = await startInspector({ runtime, userId: 'ann' });
    open.push(inspector);
    const client = inspectorClient(inspector);
    const listed = (await client.get('/api/sessions')).json as {
      sessions: { usageSoFar: Usage }[];
    };
    const detail = (await client.get('/api/sessions/s1')).json as {
      session: { usageSoFar: Usage; runStatus: { runId: string } };
    };
    const run = (await client.get(`/api/sessions/s1/runs/${detail.session.runStatus.runId}`))
      .json as { tree: Node };
    const [input, output] = stepTokens(run.tree);
    // the sub-agent's model step counts before its run ends
    expect(run.tree.children).toHaveLength(1);
    expect([input, output]).toEqual([30, 15]);
    const tokens = (u: Usage) => [u.inputTokens, u.outputTokens];
    expect(tokens(listed.sessions[0]!.usageSoFar)).toEqual([input, output]);
    expect(tokens(detail.session.usageSoFar)).toEqual([input, output]);
    expect(tokens(run.tree.usage)).toEqual([input, output]);
  });
});
