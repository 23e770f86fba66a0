import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/index.js';
import { FakeClock, MemorySessionStore } from '../../src/testing.js';
import { SessionSaveFailedError } from '../../src/errors/session-errors.js';
import type { SessionCommit, SessionRecord } from '../../src/persistence/session-store.js';
import { describeSession } from '../../src/runs/session-view.js';
import { SAVE_RETRY_WAITS_MS } from '../../src/session-host/save-retries.js';
import { until } from '../helpers/async.js';
import { key, payModel, payTool } from '../helpers/in-doubt-payment.js';

/** The memory store, but its saves fail as unreachable while `down` (as the PostgreSQL store's do). */
class OutageStore extends MemorySessionStore {
  down = false;
  override save(input: SessionCommit): Promise<SessionRecord> {
    if (this.down) {
      const cause = new Error('connect ETIMEDOUT');
      return Promise.reject(
        new SessionSaveFailedError(input.record.sessionId, cause, { unreachable: true }),
      );
    }
    return super.save(input);
  }
}

/** A fake clock that notes how long each wait on it is. */
class NotingClock extends FakeClock {
  readonly waits: number[] = [];
  override sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
    this.waits.push(at - this.now());
    return super.sleepUntil(at, signal);
  }
}

/** A promise watched: `done` once it settles (its rejection handled, read from `promise`). */
function settles<T>(promise: Promise<T>) {
  const watched = { promise, done: false };
  promise.then(
    () => (watched.done = true),
    () => (watched.done = true),
  );
  return watched;
}

describe("a cancel during a tool result's save retries", () => {
  it.each([
    ['its signal', (_agent: Agent, stop: AbortController) => stop.abort()],
    [
      'agent.cancel in the same process',
      (agent: Agent) => void agent.cancel(key.sessionId, { userId: key.userId }),
    ],
  ] as const)(
    '(%s) stops the waits: the run settles with the typed save error at once (the clock never moves); a resume in a new agent finds the call in doubt and does not run it again',
    async (_how, cancel) => {
      const store = new OutageStore();
      const clock = new NotingClock();
      const charges: string[] = [];
      const agent = new Agent({
        name: 'payer',
        model: payModel(),
        store,
        clock,
        tools: [
          payTool(charges, {}, () => {
            store.down = true; // the charge happened; the store is unreachable from now on
            return Promise.resolve();
          }),
        ],
      });
      const stop = new AbortController();
      const running = settles(agent.run('pay 5', { ...key, signal: stop.signal }));
      await until(
        () => clock.waits.includes(SAVE_RETRY_WAITS_MS[0]!) || running.done,
        'the first retry to wait',
      );
      expect(running.done).toBe(false);
      const started = clock.now();
      cancel(agent, stop);
      await until(() => running.done, 'the run to settle without the clock moving');
      expect(await running.promise.catch((error: unknown) => error)).toMatchObject({
        code: 'SESSION_SAVE_FAILED',
        unreachable: true,
      });
      expect(clock.now()).toBe(started); // no wait was waited out
      expect(clock.waits.filter((w) => w === SAVE_RETRY_WAITS_MS[1])).toEqual([]);
      expect(charges).toEqual(['c1']);

      store.down = false;
      const record = await store.load(key);
      expect(describeSession(record).run?.state).toBe('tools'); // as saved before the tool ran
      const again: string[] = [];
      const fresh = new Agent({
        name: 'payer',
        model: payModel(),
        store,
        tools: [payTool(again, {})],
      });
      const resumed = await fresh.resume(key.sessionId, { userId: key.userId });
      expect(again).toEqual([]); // not run twice
      expect(resumed.output).toMatch(
        /^error: Error: the outcome of this call of tool "pay" is unknown/,
      );
      const entry = (await store.readRunJournal(key, resumed.id)).find((e) => e.kind === 'tool');
      expect(entry?.output).toMatchObject({ isError: true, inDoubt: { resolution: 'failed' } });
    },
  );
});
