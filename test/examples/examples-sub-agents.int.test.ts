import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { describeSession } from '../../src/runs/session-view.js';
import { runExample } from '../helpers/run-example.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

describe('examples/sub-agents.ts', () => {
  it('delegates to two specialists, exits while one waits for approval, and a new process finishes both', async () => {
    const dir = await temps.folder();
    const out = await runExample('sub-agents.ts', dir);
    const lines = out.map((o) => o.line);
    const find = (prefix: string) => out.find((o) => o.line.startsWith(prefix));
    const asked = find('User alice writes');
    const paused = find('The run paused for approval');
    const finished = find('The run finished');
    expect(asked && paused && finished).toBeTruthy();
    expect(paused!.pid).toBe(asked!.pid);
    expect(finished!.pid).not.toBe(paused!.pid);
    expect(lines).toContain(
      '  triage > billing asks to call refund {"order":"A-77","amountUsd":42}',
    );
    // shipping ran once, in the first process; the refund once, in the second, after approval
    const tracked = out.filter((o) => o.line.includes('[shipping] tracking'));
    const refunded = out.filter((o) => o.line.includes('[billing] refunding'));
    expect(tracked.map((o) => o.pid)).toEqual([asked!.pid]);
    expect(refunded.map((o) => o.pid)).toEqual([finished!.pid]);
    expect(finished!.line).toBe(
      'The run finished: billing: refunded $42 for A-77 | shipping: A-77 is in the depot in Lyon, out for delivery tomorrow',
    );
    expect(lines).toContain('Tokens in all: 90.');

    const store = await LevelSessionStore.open({ path: join(dir, 'db') });
    try {
      const { sessions } = await store.list({ userId: 'alice' });
      expect(sessions).toHaveLength(1);
      const view = describeSession(await store.load(sessions[0]!));
      expect(view.state).toBe('active.idle');
      expect(view.lastRun?.subRuns?.map((r) => r.agentPath.join('>')).sort()).toEqual([
        'triage>billing',
        'triage>shipping',
      ]);
    } finally {
      await store.close();
    }
  });
});
