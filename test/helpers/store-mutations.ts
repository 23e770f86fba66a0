import { mulberry32 } from '../../src/core/seeded-random.js';
import { sealValue } from '../../src/persistence/sealed-value.js';

/**
 * Seeded damage to the raw entries of a session store, for the store fuzz test: each mutation
 * changes exactly one key (its value changed, removed, or another key's value copied onto it).
 */

/** A small seeded PRNG (mulberry32): the same seed gives the same mutations on every run. */
export class Prng {
  /** A float in [0, 1). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(values: readonly T[]): T {
    if (values.length === 0) throw new RangeError('pick from an empty list');
    return values[this.int(values.length)]!;
  }
}

export const MUTATION_KINDS = [
  'bitFlip',
  'truncate',
  'delete',
  'duplicate',
  'wrongType',
  'futureVersion',
  'unseal',
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

/**
 * The first letter of a key: record, listing, history, journal, totals, legacy owner marker,
 * approval-deadline index entry, audit entry, a record's changes since its stored whole form.
 */
export type KeyKind = 's' | 'l' | 'h' | 'j' | 't' | 'o' | 'd' | 'a' | 'c' | 'x' | 'n';
const KEY_KINDS: readonly KeyKind[] = ['s', 'l', 'h', 'j', 't', 'o', 'd', 'a', 'c', 'x', 'n'];

export function keyKindOf(key: string): KeyKind {
  const kind = key[0] as KeyKind;
  if (!KEY_KINDS.includes(kind)) throw new RangeError(`unknown key kind: ${key}`);
  return kind;
}

export interface Mutation {
  id: number;
  kind: MutationKind;
  keyKind: KeyKind;
  /** The one key whose stored value differs from the base. */
  key: string;
  /** Its value after the mutation; `undefined` when the key is removed. */
  value: string | undefined;
  /** What was done, for the report. */
  detail: string;
}

/** The base entries with `mutation` applied. */
export function applyMutation(base: ReadonlyMap<string, string>, mutation: Mutation) {
  const entries = new Map(base);
  if (mutation.value === undefined) entries.delete(mutation.key);
  else entries.set(mutation.key, mutation.value);
  return entries;
}

const SEAL = /^#[0-9a-f]{8}/;

/**
 * Fields whose absence is type-correct (they are optional in the stored schemas) or whose
 * value is any JSON by contract (app metadata, a task, structured output): removing them, or
 * changing the type of what they hold, is a forged value of the right type, which a checksum
 * anyone can recompute cannot tell from a real one. The wrong-type mutation leaves them out.
 */
const OPTIONAL_FIELDS = new Set([
  'userId',
  'parentId',
  'model',
  'systemPrompt',
  'task',
  'currentRun',
  'lastRun',
  'output',
  'structured',
  'error',
  'interruption',
  'outcome',
  'resultsAt',
  'decision',
  'reason',
  'message',
  'deadline',
  'maxTurns',
  'maxTokens',
  'maxCostUsd',
  'historyEnd',
  'outputError',
  'result',
  'position',
  'rejection',
  'isError',
  'agent',
  'text',
  'stepStarts',
  'restarts',
  // audit entries
  'action',
  'tool',
  'callId',
  'agentPath',
  'permission',
  'by',
  'via',
]);
const FREE_FORM_FIELDS = new Set(['metadata', 'task', 'structured']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

/** One value of each JSON type, so a replacement always changes the type. */
const SAMPLES: Json[] = [null, true, 7, 'x', [], {}];

function jsonType(value: Json): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * A run's usage without `costUsd` is a valid one (a model without a known price); a user's
 * totals always have it.
 */
const unknownCost = (parent: Json, name: string | number): boolean =>
  name === 'costUsd' && typeof parent === 'object' && parent !== null && 'cachedTokens' in parent;

/** Every path below the root whose type may be changed, and whether it may be removed. */
function mutablePaths(
  value: Json,
  path: Path = [],
  out: { path: Path; removable: boolean }[] = [],
) {
  if (value === null || typeof value !== 'object') return out;
  const children: [string | number, Json][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  for (const [name, child] of children) {
    if (typeof name === 'string' && FREE_FORM_FIELDS.has(name)) continue;
    const childPath = [...path, name];
    out.push({
      path: childPath,
      removable:
        typeof name === 'string' && !OPTIONAL_FIELDS.has(name) && !unknownCost(value, name),
    });
    mutablePaths(child, childPath, out);
  }
  return out;
}

function parentOf(
  root: Json,
  path: Path,
): { parent: Json[] | Record<string, Json>; at: string | number } {
  let node = root as Json[] | Record<string, Json>;
  for (const part of path.slice(0, -1)) node = (node as Record<string, Json>)[part] as never;
  return { parent: node, at: path[path.length - 1]! };
}

/**
 * Generates `count` mutations of `base`, cycling through every (mutation kind, key kind) pair
 * the entries allow, with the key, position and replacement drawn from the seeded PRNG.
 */
export function generateMutations(
  base: ReadonlyMap<string, string>,
  seed: number,
  count: number,
): Mutation[] {
  const prng = new Prng(seed);
  const byKind = new Map<KeyKind, string[]>();
  for (const key of base.keys()) {
    const kind = keyKindOf(key);
    byKind.set(kind, [...(byKind.get(kind) ?? []), key]);
  }
  const pairs = MUTATION_KINDS.flatMap((kind) =>
    [...byKind.keys()]
      .filter((keyKind) => kind !== 'futureVersion' || keyKind === 's')
      // A removed audit entry leaves no trace (no chain links the log's entries): a known
      // limit, documented in STORE-CONTRACT.md; every other damage to one is typed.
      .filter((keyKind) => kind !== 'delete' || keyKind !== 'a')
      .map((keyKind) => ({ kind, keyKind })),
  );
  const mutations: Mutation[] = [];
  for (let id = 0; mutations.length < count; id++) {
    const { kind, keyKind } = pairs[id % pairs.length]!;
    const keys = byKind.get(keyKind)!;
    const mutation = mutate(prng, base, kind, keyKind, keys, mutations.length);
    if (mutation) mutations.push(mutation);
  }
  return mutations;
}

function mutate(
  prng: Prng,
  base: ReadonlyMap<string, string>,
  kind: MutationKind,
  keyKind: KeyKind,
  keys: string[],
  id: number,
): Mutation | undefined {
  const key = prng.pick(keys);
  const original = base.get(key)!;
  const made = (value: string | undefined, detail: string, at = key): Mutation | undefined =>
    value === base.get(at) ? undefined : { id, kind, keyKind, key: at, value, detail };
  switch (kind) {
    case 'bitFlip': {
      const bytes = Buffer.from(original, 'utf8');
      const index = prng.int(bytes.length);
      const bit = prng.int(8);
      bytes[index]! ^= 1 << bit;
      return made(bytes.toString('utf8'), `bit ${bit} of byte ${index}`);
    }
    case 'truncate': {
      const bytes = Buffer.from(original, 'utf8');
      const length = prng.int(bytes.length);
      return made(bytes.subarray(0, length).toString('utf8'), `to ${length} bytes`);
    }
    case 'delete':
      return made(undefined, 'key removed');
    case 'duplicate': {
      const next = nextPosition(key);
      const others = keys.filter((k) => k !== key);
      if (next === undefined && others.length === 0) return undefined; // a kind's only key
      const target =
        next !== undefined && (others.length === 0 || prng.int(2) === 0) ? next : prng.pick(others);
      return made(original, `value of ${key} copied`, target);
    }
    case 'wrongType': {
      const json = JSON.parse(original.replace(SEAL, '')) as Json;
      const { path, removable } = prng.pick(mutablePaths(json));
      const { parent, at } = parentOf(json, path);
      const current = (parent as Record<string, Json>)[at]!;
      if (removable && prng.int(4) === 0) {
        delete (parent as Record<string, Json>)[at];
        return made(sealValue(key, JSON.stringify(json)), `removed ${path.join('.')}`);
      }
      const choices = SAMPLES.filter((s) => jsonType(s) !== jsonType(current));
      const replacement = prng.pick(choices);
      (parent as Record<string, Json>)[at] = replacement;
      return made(
        sealValue(key, JSON.stringify(json)),
        `${path.join('.')}: ${jsonType(current)} -> ${JSON.stringify(replacement)}`,
      );
    }
    case 'futureVersion': {
      const envelope = JSON.parse(original.replace(SEAL, '')) as { schemaVersion: number };
      envelope.schemaVersion += 1;
      return made(
        sealValue(key, JSON.stringify(envelope)),
        `schemaVersion ${envelope.schemaVersion}`,
      );
    }
    case 'unseal':
      return made(original.replace(SEAL, ''), 'seal removed (a legacy value)');
  }
}

/** The key of the next history position or journal step, for keys that have one. */
function nextPosition(key: string): string | undefined {
  const match = /^([hj]!.*!)(\d+)$/.exec(key);
  if (!match) return undefined;
  const [, prefix, digits] = match as unknown as [string, string, string];
  return prefix + String(Number(digits) + 1).padStart(digits.length, '0');
}
