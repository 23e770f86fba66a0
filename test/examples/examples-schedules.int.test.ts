import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore, openSchedules } from '../../src/index.js';
import { runExample } from '../helpers/run-example.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('examples/schedules.ts', () => {
  it('fires the app’s Berlin digest and the model’s approved reminder across four days, over the change to summer time', async () => {
    const dir = await temps.folder();
    const lines = (await runExample('schedules.ts', dir)).map((o) => o.line);

    expect(lines).toContain(
      'The run paused for approval: create_schedule {"at":"2026-03-29T10:00:00+02:00","text":"Reminder: call Bob","description":"call Bob"}',
    );
    const approved = lines.find((l) => l.startsWith('carol approved.'));
    const id = /\(schedule (s-[0-9a-f]{16})\)\.$/.exec(approved ?? '')?.[1];
    expect(id).toBeDefined();

    // each tick once, in time order; the digest stays at 08:00 in Berlin across the change
    const fired = lines.filter((l) => / (started|queued|skipped|failed) run /.test(l));
    expect(fired.map((l) => l.replace(/ run \w+ in /, ' in '))).toEqual([
      'Fri 27 Mar 08:00 Berlin (07:00Z): daily-digest started in alice-digest',
      'Sat 28 Mar 08:00 Berlin (07:00Z): daily-digest started in alice-digest',
      'Sun 29 Mar 08:00 Berlin (06:00Z): daily-digest started in alice-digest',
      `Sun 29 Mar 10:00 Berlin (08:00Z): ${id} started in alice-chat`,
      'Mon 30 Mar 08:00 Berlin (06:00Z): daily-digest started in alice-digest',
    ]);
    // the tick's run read its schedule and tick from its RunContext
    expect(lines).toContain(
      `  assistant> Notified alice: "call Bob" (schedule ${id}, tick Sun 29 Mar 10:00 Berlin (08:00Z)).`,
    );
    expect(
      lines.filter((l) => l.startsWith('  assistant> Digest sent (schedule daily-digest')),
    ).toHaveLength(4);
    expect(lines.at(-1)).toBe(
      `Left: daily-digest (fired 4, next Tue 31 Mar 08:00 Berlin (06:00Z)), ${id} (fired 1, ended).`,
    );

    // what the folder keeps: the runs the ticks started, each in its schedule's session
    const store = await LevelSessionStore.open({ path: join(dir, 'db') });
    temps.defer(() => store.close());
    const { entries } = await store.readAudit({ userId: 'alice', kind: 'schedule' });
    const ticks = entries.filter((e) => e.action === 'tick');
    expect(ticks.map((e) => [e.scheduleId, e.sessionId])).toEqual([
      ['daily-digest', 'alice-digest'],
      ['daily-digest', 'alice-digest'],
      ['daily-digest', 'alice-digest'],
      [id, 'alice-chat'],
      ['daily-digest', 'alice-digest'],
    ]);
    expect(new Set(ticks.map((e) => e.runId)).size).toBe(5);
    expect(entries.filter((e) => e.action === 'create').map((e) => [e.scheduleId, e.by])).toEqual([
      ['daily-digest', 'the app'],
      [id, expect.stringMatching(/^agent assistant \(run \w+\)$/)],
    ]);
    const digest = await store.readHistory({ sessionId: 'alice-digest', userId: 'alice' });
    const asked = digest.filter((i) => i.type === 'message' && i.role === 'user');
    expect(asked).toHaveLength(4);
    const reminder = await openSchedules(store).get(id!, { userId: 'alice' });
    expect(reminder).toMatchObject({
      runs: 1,
      nextAt: undefined,
      lastTick: { outcome: 'started' },
    });
  });
});
