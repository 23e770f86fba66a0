import { strict as assert } from 'node:assert';
import { InvalidSessionRecordError, SessionConflictError } from '../errors/session-errors.js';
import type { AuditEntry } from '../persistence/audit-log.js';
import type { SessionStore } from '../persistence/session-store.js';
import { equal, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { commitOn, entry, msg, newSession } from './contract-fixtures.js';

/** An audit entry of `userId`'s session `sessionId` at `at`. */
export const audited = (
  userId: string | undefined,
  sessionId: string,
  at: number,
  id: string,
  kind: AuditEntry['kind'] = 'session',
): AuditEntry => ({
  id,
  userId,
  sessionId,
  runId: undefined,
  at,
  kind,
  summary: `${kind} ${id}`,
  ...(kind === 'session' ? { action: id } : {}),
});

/** Every entry of one user, page by page (small pages, to exercise the cursor). */
async function everything(
  store: SessionStore,
  userId: string | undefined,
  limit = 2,
): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.readAudit({ userId, cursor, limit });
    out.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

const ids = (entries: AuditEntry[]) => entries.map((e) => e.id);

/** The audit-log part of the store contract (STORE-CONTRACT.md, "Audit log"). */
export function auditContract(tests: ContractTests, { name, open }: StoreContractOptions): void {
  const test = (title: string, body: Parameters<typeof storeTest>[3]) =>
    storeTest(tests, open, title, body);
  tests.describe(`${name}: audit log contract`, () => {
    test('writes entries with create, save and purge, atomically with the step', async (harness) => {
      const { store } = harness;
      const v1 = await store.create(
        newSession('s1', 'alice'),
        [],
        [audited('alice', 's1', 5, 'c')],
      );
      const v2 = await store.save(
        commitOn(v1, [msg('hi')], [entry('r1', 0)], {
          audit: [audited('alice', 's1', 6, 'x', 'tool_call'), audited('alice', 's1', 6, 'y')],
        }),
      );
      // A refused save (stale version) writes none of its entries.
      await rejects(
        store.save(commitOn(v1, [], [], { audit: [audited('alice', 's1', 7, 'lost')] })),
        SessionConflictError,
      );
      equal(ids(await everything(store, 'alice')), ['c', 'x', 'y']);
      await store.save(commitOn(v2, [], [], { audit: [audited('alice', 's1', 8, 'z')] }));
      await store.purge({ sessionId: 's1', userId: 'alice' }, [audited('alice', 's1', 9, 'p')]);
      // Entries outlive their session.
      equal(ids(await everything(store, 'alice')), ['c', 'x', 'y', 'z', 'p']);
      await rejects(
        store.save(
          commitOn(v1, [], [], { audit: [{ ...audited('alice', 's1', 1, 'bad'), at: -1 }] }),
        ),
        TypeError,
      );
    });

    test('queries one user by session, kind and time range, paged, in time order', async (harness) => {
      const { store } = harness;
      const a = await store.create(
        newSession('s1', 'alice'),
        [],
        [audited('alice', 's1', 10, 'a')],
      );
      await store.create(
        newSession('s2', 'alice'),
        [],
        [audited('alice', 's2', 20, 'b', 'denial')],
      );
      await store.save(
        commitOn(a, [], [], {
          audit: [audited('alice', 's1', 30, 'c', 'tool_call'), audited('alice', 's1', 40, 'd')],
        }),
      );
      await store.create(newSession('s1', 'bob'), [], [audited('bob', 's1', 15, 'bob1')]);
      await store.create(newSession('s1'), [], [audited(undefined, 's1', 15, 'anon')]);
      equal(ids(await everything(store, 'alice', 1)), ['a', 'b', 'c', 'd']);
      equal(ids(await everything(store, 'bob')), ['bob1']);
      equal(ids(await everything(store, undefined)), ['anon']);
      equal(ids(await everything(store, 'carol')), []);
      const q = (extra: object) => store.readAudit({ userId: 'alice', ...extra });
      equal(ids((await q({ sessionId: 's1' })).entries), ['a', 'c', 'd']);
      equal(ids((await q({ kind: ['denial', 'tool_call'] })).entries), ['b', 'c']);
      equal(ids((await q({ from: 20, to: 40 })).entries), ['b', 'c']);
      const first = await q({ sessionId: 's1', limit: 2 });
      equal(ids(first.entries), ['a', 'c']);
      equal(ids((await q({ sessionId: 's1', cursor: first.nextCursor })).entries), ['d']);
      for (const e of await everything(store, 'alice')) assert.equal(e.userId, 'alice');
      await rejects(store.readAudit({ userId: 'alice', limit: 0 }), TypeError);
    });

    test('reports a damaged entry as InvalidSessionRecordError naming its key', async (harness) => {
      const { store } = harness;
      await store.create(newSession('s1', 'alice'), [], [audited('alice', 's1', 10, 'a')]);
      await harness.damageAudit('alice', '{"not":"sealed"}');
      const error = await store.readAudit({ userId: 'alice' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof InvalidSessionRecordError);
      assert.ok(error.message.includes('a!u:alice!'));
    });
  });
}
