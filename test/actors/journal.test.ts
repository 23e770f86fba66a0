import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { type JournalEntry } from '../../src/store.js';
import { describeSession } from '../../src/runs/session-view.js';
import { approvalAgent, callTools } from '../helpers/approval-agent.js';
import { TempStores } from '../helpers/temp-store.js';
import { TornStore } from '../helpers/torn-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'journal', userId: 'alice' };
const opts = { sessionId: key.sessionId, userId: key.userId };
const lookup = (word: string) => ({ name: 'lookup', arguments: { word } });
const email = { name: 'send_email', arguments: { to: 'bob@example.com', body: 'hi' } };

async function crashAt(tearOn: (entry: JournalEntry) => boolean, input: string) {
  const temp = await temps.open();
  await temp.store.close();
  const torn = new TornStore(temp.path, tearOn);
  await torn.ready();
  const first = approvalAgent(torn);
  await expect(first.agent.run(input, opts)).rejects.toThrow(/power cut/);
  expect(torn.crashed).toBe(true);
  await torn.close();
  const store = await LevelSessionStore.open({ path: temp.path });
  temps.defer(() => store.close());
  return { store, first, record: await store.load(key) };
}

describe('step journal', () => {
  it('journals every model, approval and tool step under (sessionId, runId, step), in the snapshot batch', async () => {
    const temp = await temps.open();
    await temp.store.close();
    const batches: string[][] = [];
    const store = await LevelSessionStore.open({
      path: temp.path,
      onBatchOp: (index, op) => {
        if (index === 0) batches.push([]);
        batches[batches.length - 1]!.push(op.key);
      },
    });
    temps.defer(() => store.close());
    const { agent } = approvalAgent(store);
    const paused = await agent.run(callTools(lookup('owl'), email), opts);
    const done = await agent.resume(paused.state.approve('call_1_1'));

    const entries = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((step) => store.readJournal(key, done.id, step)),
    );
    expect(entries.map((e) => e && [e.step, e.kind, e.runId === done.id])).toEqual([
      [0, 'model', true],
      [1, 'tool', true],
      [2, 'tool', true],
      [3, 'approval', true],
      [4, 'model', true],
      undefined,
    ]);
    expect(entries[1]?.output).toEqual({
      callId: 'call_1_0',
      isError: false,
      result: { type: 'tool_result', callId: 'call_1_0', name: 'lookup', output: 'owl: found' },
    });
    // Only calls of tools that declare a check are evaluated (lookup has none).
    expect(entries[3]?.output).toMatchObject({
      decisions: [{ callId: 'call_1_1', needsApproval: true }],
    });
    // Another session's key space holds none of it.
    expect(await store.readJournal({ sessionId: key.sessionId }, done.id, 0)).toBeUndefined();

    // Each batch with a journal entry also writes the session record (the snapshot moving past
    // it): whole, or as its changes since the whole one.
    const journaled = batches.filter((keys) => keys.some((k) => k.startsWith('j!')));
    expect(journaled.length).toBeGreaterThan(0);
    const recordWrite = (k: string) => k.startsWith('s!') || k.startsWith('c!');
    for (const keys of journaled) expect(keys.some(recordWrite)).toBe(true);
    const journalKeys = journaled.flat().filter((k) => k.startsWith('j!'));
    expect(journalKeys).toHaveLength(5);
    expect(journalKeys.every((k) => k.startsWith(`j!u:alice!journal!${done.id}!`))).toBe(true);
  });

  it('a restored in-flight model step replays its journaled answer instead of calling the model', async () => {
    const { store, first, record } = await crashAt(
      (e) => e.kind === 'model' && e.step === 0,
      callTools(lookup('owl')),
    );
    expect(first.model.calls).toHaveLength(1);
    expect(describeSession(record).run?.state).toBe('modelCall');
    const runId = describeSession(record).run!.context.runId;
    expect((await store.readJournal(key, runId, 0))?.kind).toBe('model');

    const second = approvalAgent(store);
    const done = await second.agent.resume(key.sessionId, { userId: key.userId });
    expect(done.output).toBe('Done. lookup: owl: found');
    // Only the model call after the tool ran: step 0 came from the journal.
    expect(second.model.calls).toHaveLength(1);
    expect(second.model.calls[0]!.items.map((i) => i.type)).toEqual([
      'message',
      'tool_call',
      'tool_result',
    ]);
    expect(second.counters.executed).toEqual({ lookup: 1 });
    expect(done.usage.inputTokens).toBe(20);
  });

  it('a restored in-flight tool call replays its journaled result instead of running the tool', async () => {
    const { store, first, record } = await crashAt(
      (e) => e.kind === 'tool',
      callTools(lookup('owl'), lookup('elk')),
    );
    expect(first.counters.executed).toEqual({ lookup: 2 });
    const run = describeSession(record).run;
    expect(run?.state).toBe('tools');
    // The snapshot still nests the tool call children, started again on restore.
    const children = (record.snapshot as { children: { run: { snapshot: { children: object } } } })
      .children.run.snapshot.children;
    expect(Object.keys(children)).toHaveLength(2);

    const runId = run!.context.runId;
    const journaled = (
      await Promise.all([1, 2].map((step) => store.readJournal(key, runId, step)))
    ).filter(Boolean);
    expect(journaled.length).toBeGreaterThan(0);

    const second = approvalAgent(store);
    const done = await second.agent.resume(key.sessionId, { userId: key.userId });
    // Journaled calls replay; only a call whose result was not yet journaled runs again.
    expect(second.counters.executed.lookup ?? 0).toBe(2 - journaled.length);
    expect(done.output).toBe('Done. lookup: owl: found | lookup: elk: found');
    const history = await store.readHistory(key);
    // Each call has exactly one result in the history.
    const resultIds = history.flatMap((i) => (i.type === 'tool_result' ? [i.callId] : []));
    expect(resultIds.sort()).toEqual(['call_1_0', 'call_1_1']);
  });
});
