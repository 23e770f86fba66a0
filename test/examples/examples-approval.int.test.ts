import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { describeSession } from '../../src/runs/session-view.js';
import { TempStores } from '../helpers/temp-store.js';
import { runExample as runShared } from '../helpers/run-example.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const runExample = (dir: string, ...args: string[]) => runShared('approval.ts', dir, ...args);

/** The single session the example left in `dir`, as stored. */
async function storedSession(dir: string) {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const { sessions } = await store.list({ userId: 'alice' });
    expect(sessions).toHaveLength(1);
    const record = await store.load({ sessionId: sessions[0]!.sessionId, userId: 'alice' });
    return { view: describeSession(record), history: await store.readHistory(record) };
  } finally {
    await store.close();
  }
}

describe('examples/approval.ts', () => {
  it('pauses in one process and is approved and resumed to the end in another', async () => {
    const dir = await temps.folder();
    const out = await runExample(dir);
    const asked = out.find((o) => o.line.startsWith('User alice asks'));
    const paused = out.find((o) => o.line.startsWith('The run paused for approval'));
    const finished = out.find((o) => o.line.startsWith('The run finished'));
    expect(asked && paused && finished).toBeTruthy();
    expect(paused!.pid).toBe(asked!.pid);
    expect(finished!.pid).not.toBe(paused!.pid);
    expect(out.map((o) => o.line)).toContain(
      '  call_1_0  pay_bill {"payee":"ACME Power","amountUsd":120}',
    );
    expect(out.map((o) => o.line)).toContain('Approving call_1_0 (pay_bill).');
    expect(finished!.line).toBe(
      'The run finished after 2 turns: Paid $120.00 to ACME Power (confirmation tx-call_1_0).',
    );

    const { view, history } = await storedSession(dir);
    expect(view.state).toBe('active.idle');
    expect(view.lastRun).toMatchObject({ status: 'completed', turn: 2 });
    expect(history.map((i) => i.type)).toEqual(['message', 'tool_call', 'tool_result', 'message']);
    expect(existsSync(join(dir, 'pending-approval.json'))).toBe(false);
  });

  it('runs the phases separately: request exits paused, reject resumes to a refusal', async () => {
    const dir = await temps.folder();
    const first = await runExample(dir, 'request');
    expect(first.at(-1)?.line).toMatch(/this process exits now\.$/);
    expect(existsSync(join(dir, 'pending-approval.json'))).toBe(true);
    expect((await storedSession(dir)).view.run?.state).toBe('awaitingApproval');

    const second = await runExample(dir, 'reject');
    expect(second[0]!.pid).not.toBe(first[0]!.pid);
    expect(second.at(-1)?.line).toBe(
      'The run finished after 2 turns: I did not pay the bill: The user declined this payment.',
    );
    expect((await storedSession(dir)).view).toMatchObject({ state: 'active.idle', run: undefined });
  });
});
