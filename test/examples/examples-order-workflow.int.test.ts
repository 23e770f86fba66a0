import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { runExample } from '../helpers/run-example.js';
import { TempStores } from '../helpers/temp-store.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** The order instances the example left in `dir`, as listed from the store. */
async function storedOrders(dir: string) {
  const store = await LevelSessionStore.open({ path: join(dir, 'db') });
  try {
    const { sessions } = await store.list({ kind: 'workflow', userId: 'shop' });
    return sessions
      .filter((s) => s.workflow === 'orders')
      .map((s) => ({ id: s.sessionId, workflow: s.workflow, status: s.status }));
  } finally {
    await store.close();
  }
}

describe('examples/order-workflow.ts', () => {
  it('starts two orders in one process, approves one in a second, escalates the other three days later in a third', async () => {
    const dir = await temps.folder();
    const out = await runExample('order-workflow.ts', dir);
    const lines = out.map((o) => o.line);
    const pidOf = (prefix: string) => out.find((o) => o.line.startsWith(prefix))?.pid;

    // Three processes besides the parent: start, approve, later.
    const started = pidOf('Both refunds wait for approval');
    const approved = pidOf('Approving propose_refund');
    const later = pidOf('Three days later');
    expect(pidOf('Order A-100: alice says')).toBe(started);
    expect(pidOf('B-200: completed')).toBe(later);
    expect(pidOf('A-100: completed')).toBe(approved);
    expect(new Set([started, approved, later]).size).toBe(3);
    expect(started && approved && later).toBeTruthy();

    expect(lines).toContain('  [warehouse] order A-100: paid, $40 refundable');
    expect(
      lines.filter((l) => l.startsWith('A-100: active') && l.includes('awaiting approval')),
    ).toHaveLength(1);
    expect(lines).toContain(
      'Approving propose_refund {"orderId":"A-100","amountUsd":40,"note":"item arrived damaged"} of A-100.',
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^A-100: completed, state "refunded": \{"orderId":"A-100","refundedUsd":40,"confirmation":"tx-A-100:\d+"\}$/,
      ),
    );
    expect(lines).toContain('  [tickets] ticket for B-200: refund not approved within 3 days');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^B-200: completed, state "refunded": \{"orderId":"B-200","refundedUsd":100,"confirmation":"tx-B-200:\d+"\}$/,
      ),
    );
    // Each payment once, by its step's idempotency key (`<order>:<journal step>`).
    expect(lines.filter((l) => l.startsWith('  [payments]'))).toEqual([
      expect.stringMatching(/^ {2}\[payments\] refunding \$40 for A-100 \(key A-100:\d+\)$/),
      expect.stringMatching(/^ {2}\[payments\] refunding \$100 for B-200 \(key B-200:\d+\)$/),
    ]);
    const payments = JSON.parse(await readFile(join(dir, 'payments.json'), 'utf8')) as object;
    expect(Object.keys(payments)).toEqual([
      expect.stringMatching(/^A-100:\d+$/),
      expect.stringMatching(/^B-200:\d+$/),
    ]);

    expect(await storedOrders(dir)).toEqual([
      { id: 'workflow:A-100', workflow: 'orders', status: 'completed' },
      { id: 'workflow:B-200', workflow: 'orders', status: 'completed' },
    ]);
  });
});
