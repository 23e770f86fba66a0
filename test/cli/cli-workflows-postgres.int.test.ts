import { afterEach, describe, expect, it } from 'vitest';
import type { PostgresSessionStore } from '../../src/postgres.js';
import { cliInProcess } from '../helpers/cli-in-process.js';
import { usePostgres } from '../helpers/postgres-tests.js';
import { writeWorkflows } from '../helpers/workflow-records.js';

/**
 * Issue 42, "events from anywhere": the `workflows` commands on a PostgreSQL store shared by
 * processes. What they send reaches the store's inboxes, for the process hosting the instance.
 */
const pgt = usePostgres();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The app's store in a fresh schema holding the fixture's instances, and a command line on it. */
async function shared() {
  const { store, schema, cleanup } = await pgt.freshStore('wf');
  cleanups.push(cleanup);
  await writeWorkflows(store);
  const cli = (user: string, ...args: string[]) =>
    cliInProcess([...args, '--user', user, '--schema', schema], {
      AGENTSTATE_POSTGRES_URL: pgt.url,
    });
  return { store, cli };
}

const inbox = (store: PostgresSessionStore) =>
  store.queuedMessages({ sessionId: 'workflow:order-1', userId: 'alice' });

describe('agentstate workflows on PostgreSQL', () => {
  it('lists and shows the instances of the shared store', async () => {
    const { cli } = await shared();
    const listed = await cli('alice', 'workflows', 'list', '--json');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((w) => w.id)).toEqual([
      'order-1',
      'order-2',
    ]);
    const shown = await cli('alice', 'workflows', 'show', 'order-1');
    expect(shown.stdout).toMatch(/^state +refund\.drafting$/m);
    expect(shown.stdout).toMatch(/^c-refund +refund /m);
    const everyone = await cli('alice', 'workflows', 'list', '--all-users');
    expect(everyone.code).toBe(2);
  });

  it('send and cancel reach the instance inbox the hosting process reads; another user is refused and nothing is queued', async () => {
    const { store, cli } = await shared();
    expect((await cli('bob', 'workflows', 'send', 'order-1', 'SHIP')).code).toBe(3);
    expect((await cli('bob', 'workflows', 'cancel', 'order-1')).code).toBe(3);
    expect(await inbox(store)).toEqual([]);

    const sent = await cli(
      'alice',
      'workflows',
      'send',
      'order-1',
      '{"type":"SHIP"}',
      '--event-id',
      's-1',
    );
    expect(sent.code).toBe(0);
    const cancelled = await cli('alice', 'workflows', 'cancel', 'order-1', '--reason', 'late');
    expect(cancelled.code).toBe(0);
    expect((await inbox(store)).map((m) => m.options)).toEqual([
      { event: { type: 'SHIP' }, eventId: 's-1' },
      { cancel: expect.objectContaining({ reason: 'late' }) as unknown },
    ]);
  });

  it('approve by workflow id goes to the decision inbox, for the scheduler of the process hosting the workflow', async () => {
    const { store, cli } = await shared();
    const drafter = { sessionId: 'order-1~drafter', userId: 'alice' };
    const before = await store.load(drafter);
    const approved = await cli('alice', 'workflows', 'approve', 'order-1', 'c-refund', '--json');
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({
      sessionId: drafter.sessionId,
      submitted: true,
    });
    const { submitted } = await store.submittedDecisions({ limit: 10 });
    expect(submitted).toEqual([
      expect.objectContaining({
        key: drafter,
        decisions: [expect.objectContaining({ callId: 'c-refund', approve: true })],
      }),
    ]);
    // Submitted, not applied: the session itself is as it was until the scheduler applies it.
    expect(await store.load(drafter)).toEqual(before);
  });
});
