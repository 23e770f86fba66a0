import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Agent,
  LevelSessionStore,
  SessionRuntime,
  tool,
  type SessionKey,
  type SessionStore,
} from '../../src/index.js';
import { type JournalEntry } from '../../src/store.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { killLiveWorkers, runWorker } from '../helpers/crash-driver.js';
import { lastResult } from '../helpers/sub-agent-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(async () => {
  killLiveWorkers();
  await temps.cleanupAll();
});

/** Every journal entry of the session's last run and its sub-agent runs. */
async function journals(store: SessionStore, key: SessionKey): Promise<JournalEntry[]> {
  const runtime = new SessionRuntime({
    store,
    agent: new Agent({ name: 'reader', model: new ScriptedModel([]) }),
  });
  const last = (await runtime.getSession(key)).lastRun!;
  const runIds = [last.runId, ...(last.subRuns ?? []).map((r) => r.runId)];
  const all = await Promise.all(runIds.map((id) => store.readRunJournal(key, id)));
  return all.flat();
}

describe('journal entries record when each step ran and its restarts', () => {
  it('model, approval and tool steps carry their start and end times from the injected clock', async () => {
    const temp = await temps.open();
    const clock = new FakeClock(1_000_000);
    const slow = tool({
      name: 'slow',
      description: 'Takes 250 ms of the clock',
      parameters: z.object({}),
      needsApproval: () => {
        clock.advance(5);
        return false;
      },
      execute: () => {
        clock.advance(250);
        return 'ok';
      },
    });
    const model = new ScriptedModel((request) => {
      clock.advance(40);
      return lastResult(request) === undefined
        ? { toolCalls: [{ name: 'slow', arguments: {} }] }
        : { text: 'done' };
    });
    const agent = new Agent({ name: 't', model, tools: [slow], store: temp.store, clock });
    const key = { sessionId: 'times', userId: 'ann' };
    await agent.run('go', key);
    const entries = await journals(temp.store, key);
    const spans = entries.map((e) => [e.kind, e.at - e.startedAt!, e.restarts]);
    expect(spans).toEqual([
      ['model', 40, undefined],
      ['tool', 250, undefined], // the call's step number comes before its approval check's
      ['approval', 5, undefined],
      ['model', 40, undefined],
    ]);
    expect(entries[0]!.startedAt).toBe(1_000_000);
  });

  it('an entry written without times (by an older agentstate) still reads', async () => {
    const temp = await temps.open();
    const key = { sessionId: 'old', userId: 'ann' };
    const agent = new Agent({ name: 'o', model: new ScriptedModel([{ text: 'hi' }]) });
    const runtime = new SessionRuntime({ store: temp.store, agent });
    const record = await temp.store.create(runtime.newRecord(key));
    const output = { toolCalls: [], usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 } };
    const old: JournalEntry = { runId: 'r-old', step: 0, kind: 'model', output, at: 5 };
    await temp.store.save({ record, items: [], journal: [old] });
    await temp.store.close();
    const reopened = await LevelSessionStore.open({ path: temp.path });
    try {
      expect(await reopened.readRunJournal(key, 'r-old')).toEqual([old]);
    } finally {
      await reopened.close();
    }
  });

  it('a step in flight at a SIGKILL is journaled once, with its first start and one restart; the others without restarts', async () => {
    const dir = await temps.folder();
    const run = (mode: 'start' | 'resume', crashAt?: string) =>
      runWorker({
        dbDir: join(dir, 'db'),
        logFile: join(dir, 'log'),
        mode,
        steps: 0,
        scenario: 'sub-agents',
        crashAt,
      });
    // killed in the grandchild's first tool call (after its side effect, before its journal)
    expect((await run('start', 'tool-after:1')).killed).toBe(true);
    const resumedAfter = Date.now();
    const last = await run('resume');
    expect(last.killed).toBe(false);
    expect(last.result).toBeDefined();

    const store = await LevelSessionStore.open({ path: join(dir, 'db') });
    try {
      const entries = await journals(store, { sessionId: 'nested', userId: 'u' });
      const restarted = entries.filter((e) => e.restarts !== undefined);
      expect(restarted).toHaveLength(1);
      const [tally] = restarted;
      expect(tally!.kind).toBe('tool');
      expect(tally!.restarts).toBe(1);
      // its start is the killed process's, its end the resumed one's
      expect(tally!.startedAt!).toBeLessThan(resumedAfter);
      expect(tally!.at).toBeGreaterThanOrEqual(resumedAfter);
      for (const e of entries) {
        expect(e.startedAt, `${e.runId}/${e.step}`).toBeTypeOf('number');
        expect(e.at).toBeGreaterThanOrEqual(e.startedAt!);
      }
    } finally {
      await store.close();
    }
  });
});
