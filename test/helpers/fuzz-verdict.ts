import { AgentStateError } from '../../src/errors/agentstate-error.js';
import type { ActionOutcome } from './fuzz-actions.js';
import type { Mutation } from './store-mutations.js';

/**
 * Classifies what an action did on a mutated store against what it did on the base store:
 *
 * - `typed`: a new `AgentStateError` naming the mutated key, nothing written (OK)
 * - `equal`: the base's result (or the base's own error) and the base's writes (OK)
 * - `typedOtherKey`: a new typed error naming another key (listed; BAD unless explained)
 * - `untyped`: an error that is not an `AgentStateError` (BAD)
 * - `silentlyWrong`: no new error, but a result or writes that differ from the base's (BAD)
 * - `writeAfterFailure`: a new error, and the stored bytes changed (BAD)
 */
export type Verdict =
  'typed' | 'equal' | 'typedOtherKey' | 'untyped' | 'silentlyWrong' | 'writeAfterFailure';

export const VERDICTS: readonly Verdict[] = [
  'typed',
  'equal',
  'typedOtherKey',
  'untyped',
  'silentlyWrong',
  'writeAfterFailure',
];

const ULID_TEXT = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;

/**
 * Makes results comparable across runs: ids the actions create (new run ids, random ULIDs)
 * become `<new-id>`; ids of the base store stay as they are.
 */
export class IdNormaliser {
  constructor(private readonly baseIds: ReadonlySet<string>) {}

  static of(entries: ReadonlyMap<string, string>): IdNormaliser {
    const ids = new Set<string>();
    for (const [key, value] of entries) {
      for (const id of `${key} ${value}`.match(ULID_TEXT) ?? []) ids.add(id);
    }
    return new IdNormaliser(ids);
  }

  text(text: string): string {
    return text.replace(ULID_TEXT, (id) => (this.baseIds.has(id) ? id : '<new-id>'));
  }

  /** A result or error as comparable text. */
  outcome(outcome: Pick<ActionOutcome, 'ok' | 'value' | 'error'>): string {
    if (outcome.ok) return this.text(JSON.stringify(outcome.value) ?? 'undefined');
    const e = outcome.error as Partial<AgentStateError> & { key?: unknown; field?: unknown };
    const shown = { name: e.name, code: e.code, message: e.message, key: e.key, field: e.field };
    return this.text(JSON.stringify(shown));
  }

  /** A stored value without its seal (which covers the run ids in its key). */
  entry(key: string, value: string): [string, string] {
    return [this.text(key), this.text(value.replace(/^#[0-9a-f]{8}/, ''))];
  }
}

/**
 * Whether a typed error names `key` (its `key` field when it has one, else its message). A
 * record's changes (`c!`) are part of its record (`s!`): the runtime's checks of the snapshot
 * read back name the record key, so for a changes key the record key counts too.
 */
export function namesKey(error: AgentStateError, key: string): boolean {
  const named = (error as { key?: unknown }).key;
  if (typeof named !== 'string') return error.message.includes(key);
  return named === key || (key.startsWith('c!') && named === `s!${key.slice(2)}`);
}

/**
 * Whether the store after the action on the mutated store equals the store after the same
 * action on the base store, except at the mutated key: where the base run wrote that key, it
 * must hold what the base run wrote; elsewhere it must still hold the mutated value.
 */
export function sameWrites(
  ids: IdNormaliser,
  mutation: Mutation,
  base: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  baseAfter: ReadonlyMap<string, string>,
): boolean {
  const norm = (entries: ReadonlyMap<string, string>) =>
    new Map([...entries].filter(([k]) => k !== mutation.key).map(([k, v]) => ids.entry(k, v)));
  const [a, b] = [norm(after), norm(baseAfter)];
  if (a.size !== b.size || [...a].some(([k, v]) => b.get(k) !== v)) return false;
  const now = after.get(mutation.key);
  const wrote = baseAfter.get(mutation.key);
  if (wrote === base.get(mutation.key)) return now === mutation.value;
  if (now === undefined || wrote === undefined) return now === wrote;
  return ids.entry(mutation.key, now)[1] === ids.entry(mutation.key, wrote)[1];
}

function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/** The verdict on one (mutation, action, target). */
export function classify(
  ids: IdNormaliser,
  mutation: Mutation,
  states: { base: ReadonlyMap<string, string>; mutated: ReadonlyMap<string, string> },
  outcome: ActionOutcome,
  expected: ActionOutcome,
): Verdict {
  const before = states.mutated;
  const same = ids.outcome(outcome) === ids.outcome(expected);
  if (!outcome.ok && !(outcome.error instanceof AgentStateError)) return 'untyped';
  if (same) {
    return sameWrites(ids, mutation, states.base, outcome.after, expected.after)
      ? 'equal'
      : 'silentlyWrong';
  }
  if (outcome.ok) return 'silentlyWrong';
  if (!sameEntries(outcome.after, before)) return 'writeAfterFailure';
  return namesKey(outcome.error as AgentStateError, mutation.key) ? 'typed' : 'typedOtherKey';
}
