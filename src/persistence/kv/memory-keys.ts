import type { KvRange } from '../key-range.js';
import { escapeKeyPart, ownerPart, prefixRange } from '../session-keys.js';

/**
 * Key layout of memory across sessions in the key-value stores. Every key of a user's memory
 * starts with `y!<owner>!` (the owner part of `session-keys.ts`: `a` or `u:<userId>`), so a user
 * is one key range, erased and compacted as one; a scope part is `o` for the user's own scope and
 * `r:<resource>` for a resource (parts escaped as session keys are: `!` only ever separates).
 *
 * | key                                    | value                                          |
 * |----------------------------------------|------------------------------------------------|
 * | `y!<owner>!g`                          | the user's sequence and dimension per model    |
 * | `y!<owner>!k!<id>`                     | a memory, without its vector                   |
 * | `y!<owner>!i!<seq, 12 digits>`         | the list index: a memory's id, scope and kind  |
 * | `y!<owner>!p!<scope>!<seq, 12 digits>` | the list index of one scope (the same entries) |
 * | `y!<owner>!v!<scope>!<model>!<id>`     | a memory's vector (`memory-vector-value.ts`)   |
 * | `y!<owner>!w!<scope>`                  | a scope's working memory                       |
 * | `y!<owner>!z!<scope>`                  | how many memories a scope holds                |
 *
 * A scope's vectors of one model are one range: what a search loads, nothing else.
 */
const SEQ_DIGITS = 12;
const OWN_SCOPE = 'o';

/** The start of every key of a user's memory. */
function userPrefix(userId: string | undefined): string {
  return `y!${ownerPart(userId)}!`;
}

/** The scope part of a resource's keys (`o`: the user's own scope). */
export function scopePart(resource: string | undefined): string {
  return resource === undefined ? OWN_SCOPE : `r:${escapeKeyPart(resource, 'resource')}`;
}

/** The resource a scope part names (`undefined`: the user's own scope). */
export function resourceOfScopePart(part: string): string | undefined {
  return part === OWN_SCOPE ? undefined : decodeURIComponent(part.slice(2));
}

/** Every key of a user's memory. */
export function userMemoryRange(userId: string | undefined): KvRange {
  return prefixRange(userPrefix(userId));
}

export function userMetaKey(userId: string | undefined): string {
  return `${userPrefix(userId)}g`;
}

export function memoryKey(userId: string | undefined, id: string): string {
  return `${userPrefix(userId)}k!${escapeKeyPart(id, 'memory id')}`;
}

/** The memories of a user, by id. */
export function memoryRange(userId: string | undefined): KvRange {
  return prefixRange(`${userPrefix(userId)}k!`);
}

export function listIndexKey(userId: string | undefined, seq: number): string {
  return `${userPrefix(userId)}i!${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

/** The list index of a user, oldest first (`before`: only the entries before that one). */
export function listIndexRange(userId: string | undefined, before?: number): KvRange {
  const all = prefixRange(`${userPrefix(userId)}i!`);
  return before === undefined ? all : { gte: all.gte, lt: listIndexKey(userId, before) };
}

/** A memory's entry in the list index of its scope. */
export function scopeListKey(
  userId: string | undefined,
  resource: string | undefined,
  seq: number,
): string {
  return `${userPrefix(userId)}p!${scopePart(resource)}!${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

/** The list index of one scope, oldest first (`before`: only the entries before that one). */
export function scopeListRange(
  userId: string | undefined,
  resource: string | undefined,
  before?: number,
): KvRange {
  const all = prefixRange(`${userPrefix(userId)}p!${scopePart(resource)}!`);
  return before === undefined ? all : { gte: all.gte, lt: scopeListKey(userId, resource, before) };
}

/** The sequence number of a list index key (of the user's or a scope's). */
export function seqOfListIndexKey(key: string): number {
  return Number(key.slice(-SEQ_DIGITS));
}

/** The largest sequence number a list index key can hold. */
export const MAX_SEQ = 10 ** SEQ_DIGITS - 1;

/** The vectors of one scope and model: `y!<owner>!v!<scope>!<model>!`. */
export function vectorPrefix(
  userId: string | undefined,
  resource: string | undefined,
  model: string,
): string {
  return `${userPrefix(userId)}v!${scopePart(resource)}!${escapeKeyPart(model, 'model')}!`;
}

export function vectorKey(
  userId: string | undefined,
  resource: string | undefined,
  model: string,
  id: string,
): string {
  return `${vectorPrefix(userId, resource, model)}${escapeKeyPart(id, 'memory id')}`;
}

/** Every vector of one scope (all models). */
export function scopeVectorRange(
  userId: string | undefined,
  resource: string | undefined,
): KvRange {
  return prefixRange(`${userPrefix(userId)}v!${scopePart(resource)}!`);
}

export function workingMemoryKey(userId: string | undefined, resource: string | undefined): string {
  return `${userPrefix(userId)}w!${scopePart(resource)}`;
}

/** The working memories of a user, by scope. */
export function workingMemoryRange(userId: string | undefined): KvRange {
  return prefixRange(`${userPrefix(userId)}w!`);
}

export function scopeCountKey(userId: string | undefined, resource: string | undefined): string {
  return `${userPrefix(userId)}z!${scopePart(resource)}`;
}

/** The memory counts of a user's scopes, by scope. */
export function scopeCountRange(userId: string | undefined): KvRange {
  return prefixRange(`${userPrefix(userId)}z!`);
}

/** The scope part at the end of a key of `range` (`workingMemoryRange`, `scopeCountRange`). */
export function scopePartOf(range: KvRange, key: string): string {
  return key.slice(range.gte.length);
}
