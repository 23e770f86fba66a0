import { join } from 'node:path';
import { cp } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LevelSessionStore } from '../../src/index.js';
import { bundledScript } from '../helpers/bundled-script.js';
import { buildCli, runCli, type BuiltCli } from '../helpers/cli-fixtures.js';
import { writeOrdersFolder } from '../helpers/order-workflows.js';
import { dumpBackend } from '../helpers/session-fixtures.js';
import { TempStores } from '../helpers/temp-store.js';

/**
 * Issue 42, operators: `agentstate workflows send|cancel|approve --module <app>` applies the
 * command at once with the app's own host (its machine, steps and agents), in the command
 * line's process, on the store the host was given.
 */
const temps = new TempStores();
afterEach(() => temps.cleanupAll());
let cli: BuiltCli;
let app: string;
let template: string;
const fixtures = new TempStores();

beforeAll(async () => {
  cli = await buildCli();
  app = await bundledScript('test/helpers/order-workflows-app.ts');
  template = join(await fixtures.folder(), 'db');
  await writeOrdersFolder(template);
}, 240_000);
afterAll(() => fixtures.cleanupAll());

/** A copy, for one test, of the fixture's folder (written once for the file by the real host). */
async function folder(): Promise<string> {
  const path = join(await temps.folder(), 'db');
  await cp(template, path, { recursive: true });
  return path;
}

const withApp = (db: string, ...args: string[]) =>
  runCli(cli, [...args, '--module', app, '--user', 'alice'], { env: { ORDERS_DB: db } });

async function reading<T>(db: string, read: (store: LevelSessionStore) => Promise<T>): Promise<T> {
  const store = await LevelSessionStore.open({ path: db });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

describe('agentstate workflows --module', () => {
  it('send, cancel and approve are applied at once by the app host, which says the state reached', async () => {
    const db = await folder();
    const sent = await withApp(db, 'workflows', 'send', 'order-5', 'SHIP', '--event-id', 'ship-5');
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    expect(sent.stdout).toBe(
      'event SHIP (event id ship-5) applied to workflow order-5: shipped (completed)\n',
    );
    const cancelled = await withApp(
      db,
      'workflows',
      'cancel',
      'order-6',
      '--reason',
      'late',
      '--json',
    );
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      applied: true,
      workflow: { id: 'order-6', status: 'failed', cancelled: { reason: 'late' } },
    });
    const approved = await withApp(db, 'workflows', 'approve', 'order-1', 'c-refund');
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toBe(
      'approval of call c-refund (agent drafter, session workflow:order-1/drafter) applied to workflow order-1: refunded (completed)\n',
    );
    await reading(db, async (store) => {
      for (const id of ['order-1', 'order-5', 'order-6']) {
        expect(
          await store.queuedMessages({ sessionId: `workflow:${id}`, userId: 'alice' }),
        ).toEqual([]);
      }
    });
  });

  it('an event the state does not accept is refused, naming the state and what it accepts; nothing stored changes', async () => {
    const db = await folder();
    const before = await reading(db, dumpBackend);
    const refused = await withApp(db, 'workflows', 'send', 'order-5', 'REFUNDED');
    expect(refused.code).toBe(4);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'agentstate: Workflow instance "order-5" in state "awaitingPayment" does not accept event "REFUNDED" (it accepts: REFUND, SHIP, STOCK) [EVENT_NOT_ACCEPTED]\n',
    );
    expect(await reading(db, dumpBackend)).toEqual(before);
    const both = await runCli(cli, [
      'workflows',
      'send',
      'order-5',
      'SHIP',
      '--module',
      app,
      '--db',
      db,
    ]);
    expect(both.code).toBe(2);
  });
});
