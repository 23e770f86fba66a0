import { hasDecisionInbox } from '../persistence/store-supports.js';
import { strict as assert } from 'node:assert';
import type { DecisionInbox } from '../persistence/decision-inbox.js';
import type { SessionStore } from '../persistence/session-store.js';
import { equal, eventually, rejects } from './contract-assert.js';
import { storeTest, type ContractTests, type StoreContractOptions } from './contract-harness.js';
import { newSession } from './contract-fixtures.js';

/**
 * The decision-inbox part of the store contract (a store shared by processes: decisions
 * submitted in one are applied by another). Runs when the options say the store keeps one.
 */
export function inboxContract(tests: ContractTests, { name, open }: StoreContractOptions): void {
  const inboxOf = (store: SessionStore): SessionStore & DecisionInbox => {
    if (!hasDecisionInbox(store)) throw new Error(`${name} keeps no decision inbox`);
    return store;
  };
  tests.describe(`${name}: decision inbox`, () => {
    storeTest(
      tests,
      open,
      'keeps submissions in order across owners, notifies watchers, drops and purges them',
      async (harness) => {
        const store = inboxOf(harness.store);
        const heard: number[] = [];
        const watch = await store.watchDecisions(
          () => heard.push(heard.length),
          () => undefined,
        );
        try {
          const alice = { sessionId: 's', userId: 'alice' };
          const decisions = [{ callId: 'c1', approve: true, runId: 'r1' }];
          await store.submitDecisions({ key: alice, runId: 'r1', decisions, at: 5 });
          await store.submitDecisions({
            key: { sessionId: 's' },
            runId: 'r2',
            decisions: [],
            at: 6,
          });
          const page = await store.submittedDecisions({ limit: 10 });
          equal(page.damaged, []);
          equal(
            page.submitted.map((e) => [e.key, e.runId, e.decisions, e.at]),
            [
              [alice, 'r1', decisions, 5],
              [{ sessionId: 's', userId: undefined }, 'r2', [], 6],
            ],
          );
          assert.notEqual(page.submitted[0]!.id, page.submitted[1]!.id);
          equal((await store.submittedDecisions({ limit: 1 })).submitted, [page.submitted[0]]);
          // Each submission is heard, in this process or another.
          await eventually(() => heard.length >= 2, 'both submissions were heard');
          await store.dropDecisions(page.submitted[0]!);
          const left = await store.submittedDecisions({ limit: 10 });
          equal(
            left.submitted.map((e) => e.runId),
            ['r2'],
          );
          // A purged session's submissions go with it.
          await store.submitDecisions({
            key: { sessionId: 't' },
            runId: 'r3',
            decisions: [],
            at: 7,
          });
          await store.create(newSession('t'));
          await store.purge({ sessionId: 't' });
          equal(
            (await store.submittedDecisions({ limit: 10 })).submitted.map((e) => e.runId),
            ['r2'],
          );
          await rejects(store.submittedDecisions({ limit: 0 }), TypeError);
        } finally {
          await watch.close();
        }
      },
    );
  });
}
