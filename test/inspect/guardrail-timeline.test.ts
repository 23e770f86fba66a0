import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { runTimeline } from '../../src/inspect/run-timeline.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('guardrail steps in the journal and the inspector timeline', () => {
  it('a guardrail step records its start and end times and shows its results in the run timeline', async () => {
    const { store } = await temps.open();
    const clock = new FakeClock(2_000_000);
    const agent = new Agent({
      name: 'guarded',
      model: new ScriptedModel([{ text: 'fine' }]),
      store,
      clock,
      inputGuardrails: [
        {
          name: 'slow_check',
          check: () => {
            clock.advance(30);
            return { tripwire: false, info: { checked: true } };
          },
        },
      ],
    });
    const key = { sessionId: 'gt', userId: 'ann' };
    const result = await agent.run('hello', key);
    const journal = await store.readRunJournal(key, result.id);
    const guard = journal.find((e) => e.kind === 'guardrail')!;
    expect(guard.startedAt).toBe(2_000_000);
    expect(guard.at).toBe(2_000_030);
    expect(guard.restarts).toBeUndefined();

    const step = runTimeline(journal).find((s) => s.kind === 'guardrail')!;
    expect(step.durationMs).toBe(30);
    expect(step.guardrails).toEqual([
      { name: 'slow_check', kind: 'input', tripwire: false, info: { checked: true } },
    ]);
  });
});
