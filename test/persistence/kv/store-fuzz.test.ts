import { afterEach, describe, expect, it } from 'vitest';
import { SessionRuntime } from '../../../src/index.js';
import type { KvSessionStore } from '../../../src/persistence/kv/kv-session-store.js';
import { sessionPart, ownerPart } from '../../../src/persistence/session-keys.js';
import { FakeClock } from '../../../src/testing.js';
import {
  FUZZ_ACTIONS,
  FuzzActionRunner,
  type ActionOutcome,
  type FuzzTarget,
} from '../../helpers/fuzz-actions.js';
import { buildFuzzBase, fuzzAgent, type FuzzBase } from '../../helpers/fuzz-fixture.js';
import { IdNormaliser, VERDICTS, classify, type Verdict } from '../../helpers/fuzz-verdict.js';
import {
  Prng,
  applyMutation,
  generateMutations,
  type Mutation,
} from '../../helpers/store-mutations.js';
import { TempStores } from '../../helpers/temp-store.js';
import { bySize } from '../../helpers/test-tier.js';

/**
 * Issue 8's fuzz test: seeded mutations of every kind of stored value of a LevelDB store
 * holding sessions in every lifecycle state, each followed by read and write actions on a
 * freshly loaded store. Every outcome is a typed error naming the mutated key, or the
 * unmutated store's result and writes; never an untyped error, silently different data, or a
 * write after a failure.
 *
 * Not among the actions: the store's raw journal reads (`readJournal`, `readRunJournal`). They
 * return entries as stored, with `output` unchecked against its kind, and cannot tell a deleted
 * entry of a finished run from one never written; the runtime checks the stored run's journal
 * (`checkRunJournal`) before it uses it, and no action reads a finished run's entries.
 */

/** Fixed, so every run checks the same cases; `FUZZ_SEED` and `FUZZ_CASES` explore further. */
const SEED = Number(process.env.FUZZ_SEED ?? 0x1a7e_5eed);
const CASES = Number(process.env.FUZZ_CASES ?? bySize({ quick: 140, long: 560 }));
/** How many times each action runs at least (about one in six cases). */
const OFTEN = bySize({ quick: 25, long: 100 });
/**
 * Write actions per (case, session), drawn from the seed (each still runs over a thousand
 * times); every read action always runs, owner-level ones once per case.
 */
const WRITES_PER_TARGET = 3;
const BAD: readonly Verdict[] = ['untyped', 'silentlyWrong', 'writeAfterFailure', 'typedOtherKey'];

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

/** The sessions a mutated key belongs to: its session, or every session of its owner. */
function targetsOf(key: string, targets: readonly FuzzTarget[]): FuzzTarget[] {
  const owned = targets.filter((t) => {
    const part = sessionPart(t.key);
    if (key.startsWith('t!') || key.startsWith('o!') || key.startsWith('n!'))
      return key.slice(2) === ownerPart(t.key.userId);
    // x!<owner>!<order>!<position>: a list-order entry, the position ending with the session id
    if (key.startsWith('x!')) {
      const id = part.slice(part.indexOf('!') + 1);
      return key.startsWith(`x!${ownerPart(t.key.userId)}!`) && key.endsWith(`!${id}`);
    }
    // a!<owner>!<at>!<id>: an audit entry, read with its owner's log
    if (key.startsWith('a!')) return key.startsWith(`a!${ownerPart(t.key.userId)}!`);
    // d!<deadline>!<owner>!<sid>: the session after the deadline part
    if (key.startsWith('d!')) return key.slice(key.indexOf('!', 2) + 1) === part;
    return key.slice(2) === part || key.startsWith(`${key[0]}!${part}!`);
  });
  if (owned.length === 0) throw new Error(`no session owns ${key}`);
  return owned;
}

/** Each base session with the approvals of the calls it waits on. */
async function fuzzTargets(runner: FuzzActionRunner, store: KvSessionStore, base: FuzzBase) {
  await runner.reset(base.entries);
  const clock = new FakeClock(base.now);
  const runtime = new SessionRuntime({ store, agent: fuzzAgent(store, clock), clock });
  const targets: FuzzTarget[] = [];
  for (const { key, state } of base.sessions) {
    const view = await runtime.getSession(key);
    const waiting = view.run?.state === 'awaitingApproval' ? view.run.context.calls : [];
    const decisions = waiting
      .filter((c) => c.needsApproval && c.decision === undefined)
      .map((c) => ({ callId: c.callId, approve: true }));
    targets.push({ key, state, decisions });
  }
  return targets;
}

/**
 * Runs `fn` with process warnings of `type` counted instead of printed (listing the anonymous
 * bucket of a store with named users warns every time; the fuzz lists it hundreds of times).
 */
async function countingWarnings<T>(type: string, fn: () => Promise<T>) {
  const original = Object.getOwnPropertyDescriptor(process, 'emitWarning')!;
  const emit = (original.value as (...args: unknown[]) => void).bind(process);
  let count = 0;
  const counting = (warning: string | Error, options?: unknown, ...rest: unknown[]) => {
    const name = (options as { type?: string } | undefined)?.type ?? options;
    if (name === type) count += 1;
    else emit(warning, options, ...rest);
  };
  Object.defineProperty(process, 'emitWarning', { ...original, value: counting });
  try {
    const result = await fn();
    return { result, count };
  } finally {
    Object.defineProperty(process, 'emitWarning', original);
  }
}

class Tally {
  readonly rows = new Map<string, Map<Verdict, number>>();

  add(row: string, verdict: Verdict): void {
    const counts = this.rows.get(row) ?? new Map<Verdict, number>();
    counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
    this.rows.set(row, counts);
  }

  table(title: string): string {
    const lines = [...this.rows].map(
      ([row, counts]) =>
        `${row.padEnd(24)}${VERDICTS.map((v) => String(counts.get(v) ?? 0).padStart(18)).join('')}`,
    );
    return [`${title.padEnd(24)}${VERDICTS.map((v) => v.padStart(18)).join('')}`, ...lines].join(
      '\n',
    );
  }
}

describe('store fuzz (issue 8)', () => {
  it('every mutation of every stored value: a typed error naming the key, or the unmutated result', async () => {
    const started = performance.now();
    const { store: builder } = await temps.open();
    const base = await buildFuzzBase(builder);
    const { store } = await temps.open();
    const runner = new FuzzActionRunner(store, base.now);
    const targets = await fuzzTargets(runner, store, base);
    const ids = IdNormaliser.of(base.entries);
    const mutations = generateMutations(base.entries, SEED, CASES);
    const pickWrites = new Prng(SEED ^ 0x9e3779b9);
    const reads = FUZZ_ACTIONS.filter((a) => !a.writes);
    const writes = FUZZ_ACTIONS.filter((a) => a.writes);

    const expected = new Map<string, ActionOutcome>();
    const byMutation = new Tally();
    const byKey = new Tally();
    const byAction = new Tally();
    const byState = new Tally();
    const total = new Map<Verdict, number>();
    const flagged: string[] = [];
    let checks = 0;

    const check = async (
      mutation: Mutation,
      mutated: Map<string, string>,
      target: FuzzTarget,
      first: boolean,
    ) => {
      const chosen = [...writes];
      while (chosen.length > WRITES_PER_TARGET) chosen.splice(pickWrites.int(chosen.length), 1);
      for (const action of [...reads.filter((a) => first || !a.ownerLevel), ...chosen]) {
        const cacheKey = `${action.name} ${sessionPart(target.key)}`;
        let unmutated = expected.get(cacheKey);
        if (!unmutated) {
          unmutated = await runner.run(base.entries, action, target);
          expected.set(cacheKey, unmutated);
        }
        const outcome = await runner.run(mutated, action, target);
        const states = { base: base.entries, mutated };
        const verdict = classify(ids, mutation, states, outcome, unmutated);
        checks += 1;
        byMutation.add(mutation.kind, verdict);
        byKey.add(`${mutation.keyKind}!`, verdict);
        byAction.add(action.name, verdict);
        byState.add(target.state, verdict);
        total.set(verdict, (total.get(verdict) ?? 0) + 1);
        if (BAD.includes(verdict)) {
          const error = outcome.error as Error | undefined;
          flagged.push(
            `${verdict}: #${mutation.id} ${mutation.kind} ${mutation.key} (${mutation.detail}) ` +
              `-> ${action.name} ${cacheKey}: ${
                outcome.ok
                  ? ids.outcome(outcome).slice(0, 300)
                  : `${error?.name}: ${error?.message}`
              }`,
          );
        }
      }
    };

    const { count: warnings } = await countingWarnings('IsolationWarning', async () => {
      for (const mutation of mutations) {
        const mutated = applyMutation(base.entries, mutation);
        for (const [i, target] of targetsOf(mutation.key, targets).entries()) {
          await check(mutation, mutated, target, i === 0);
        }
      }
    });

    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      [
        `store fuzz: seed 0x${SEED.toString(16)}, ${mutations.length} mutations of ` +
          `${base.entries.size} stored values, ${checks} (mutation, action) checks, ${seconds} s`,
        byMutation.table('mutation'),
        byKey.table('key kind'),
        byAction.table('action'),
        byState.table('session state'),
        `IsolationWarnings counted (anonymous listings): ${warnings}`,
        `totals: ${VERDICTS.map((v) => `${v} ${total.get(v) ?? 0}`).join(', ')}`,
        ...flagged.slice(0, Number(process.env.FUZZ_SHOW ?? 40)),
      ].join('\n'),
    );

    expect(mutations.length).toBeGreaterThanOrEqual(bySize({ quick: 140, long: 500 }));
    expect(flagged).toEqual([]);
    expect(total.get('untyped') ?? 0).toBe(0);
    expect(total.get('silentlyWrong') ?? 0).toBe(0);
    expect(total.get('writeAfterFailure') ?? 0).toBe(0);
    // Every action ran often, and both outcomes happened.
    for (const action of FUZZ_ACTIONS) {
      const counts = byAction.rows.get(action.name)!;
      expect([...counts.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(OFTEN);
    }
    expect(new Set(byState.rows.keys())).toEqual(new Set(base.sessions.map((s) => s.state)));
    expect(total.get('typed') ?? 0).toBeGreaterThan(0);
    expect(total.get('equal') ?? 0).toBeGreaterThan(0);
  }, 240_000); // 560 cases (test:long): 56-70 s on the 2-core VM, past the 60 s default
});
