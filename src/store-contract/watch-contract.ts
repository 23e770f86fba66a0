import { canWatchSessions } from '../persistence/store-supports.js';
import type { SessionWatches } from '../persistence/session-watches.js';
import type { SessionStore } from '../persistence/session-store.js';
import { equal, eventually } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { commitOn, msg, newSession } from './contract-fixtures.js';

/**
 * The session-watch part of the store contract (`watchSession`, what `agent.attach` follows a
 * run another runtime executes by). Runs when the options say the store can watch sessions.
 */
export function watchContract(tests: ContractTests, { name, open }: StoreContractOptions): void {
  const watchesOf = (store: SessionStore): SessionStore & SessionWatches => {
    if (!canWatchSessions(store)) throw new Error(`${name} cannot watch sessions`);
    return store;
  };
  tests.describe(`${name}: session watches`, () => {
    storeTest(
      tests,
      open,
      "hears each save of the watched session, not another user's or session's, until stopped",
      async (harness) => {
        const store = watchesOf(harness.store);
        const alice = { sessionId: 's', userId: 'alice' };
        const [mine, bobs, other] = await Promise.all([
          store.create(newSession('s', 'alice')),
          store.create(newSession('s', 'bob')),
          store.create(newSession('t', 'alice')),
        ]);
        const heard: string[] = [];
        const stop = await store.watchSession(
          alice,
          () => heard.push('watched'),
          () => heard.push('lost'),
        );
        const stayed: string[] = [];
        const stopStayed = await store.watchSession(
          alice,
          () => stayed.push('saved'),
          () => stayed.push('lost'),
        );
        try {
          // Saves of the other two first: heard (in commit order) before alice's, if at all.
          await store.save(commitOn(bobs, [msg('b')]));
          await store.save(commitOn(other, [msg('t')]));
          const saved = await store.save(commitOn(mine, [msg('a')]));
          await eventually(() => heard.length >= 1, "alice's save was heard");
          equal(heard, ['watched']);
          await stop();
          await store.save(commitOn(saved, [msg('again')]));
          await eventually(() => stayed.length >= 2, 'the save after the stop was heard');
          equal(stayed, ['saved', 'saved']);
          equal(heard, ['watched']);
        } finally {
          await stopStayed();
        }
      },
    );
  });
}
