import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresSessionStore } from '../../src/postgres.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { startOrders } from '../helpers/order-workflows.js';

/**
 * Issue 42, "events from anywhere": the `workflows` commands on a PostgreSQL store shared by
 * processes. What they send reaches the instance's inbox in the store, for the process holding
 * the instance to apply.
 */
const pgt = usePostgres();
let fixture: Awaited<ReturnType<typeof shared>>;
let cleanup: () => Promise<void> = async () => undefined;
beforeAll(async () => {
  fixture = await shared();
}, 60_000);
afterAll(() => cleanup());

/** The app's store in a fresh schema holding the fixture's instances, and a command line on it. */
async function shared() {
  const fresh = await pgt.freshStore('wf');
  cleanup = fresh.cleanup;
  await startOrders(fresh.store);
  const cli = (user: string, ...args: string[]) =>
    cliInProcess([...args, '--user', user, '--schema', fresh.schema], {
      AGENTSTATE_POSTGRES_URL: pgt.url,
    });
  return { store: fresh.store, cli };
}

const inbox = (store: PostgresSessionStore, id: string) =>
  store.queuedMessages({ sessionId: `workflow:${id}`, userId: 'alice' });

describe('agentstate workflows on PostgreSQL', () => {
  it('lists and shows the instances of the shared store', async () => {
    const { cli } = fixture;
    const listed = await cli('alice', 'workflows', 'list', '--json');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((w) => w.id)).toEqual([
      'order-5',
      'order-6',
    ]);
    const shown = await cli('alice', 'workflows', 'show', 'order-5');
    expect(shown.stdout).toMatch(/^state +awaitingPayment$/m);
    expect(shown.stdout).toMatch(/^next timer +\S/m);
    const everyone = await cli('alice', 'workflows', 'list', '--all-users');
    expect(everyone.code).toBe(2);
  });

  it('send and cancel reach the instance inbox the hosting process reads; another user is refused and nothing is queued', async () => {
    const { store, cli } = fixture;
    expect((await cli('bob', 'workflows', 'send', 'order-5', 'SHIP')).code).toBe(3);
    expect((await cli('bob', 'workflows', 'cancel', 'order-5')).code).toBe(3);
    expect((await cli('alice', 'workflows', 'send', 'order-5', '{"type":')).code).toBe(2);
    expect(await inbox(store, 'order-5')).toEqual([]);

    const sent = await cli(
      'alice',
      'workflows',
      'send',
      'order-5',
      '{"type":"SHIP"}',
      '--event-id',
      's-1',
    );
    expect(sent.code).toBe(0);
    const cancelled = await cli('alice', 'workflows', 'cancel', 'order-5', '--reason', 'late');
    expect(cancelled.code).toBe(0);
    expect((await inbox(store, 'order-5')).map((m) => m.options)).toEqual([
      { workflow: { kind: 'event', event: { type: 'SHIP' }, eventId: 's-1' } },
      { workflow: { kind: 'cancel', reason: 'late' } },
    ]);
  });
});
