import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { Memory, MemoryKind } from '../memory-store.js';
import { decodeStored } from '../session-schemas.js';
import { prefixRange } from '../session-keys.js';
import { ScopeVectors } from '../vectors/scope-vectors.js';
import { getAll, type KvBackend, type KvReader } from './backends/kv-backend.js';
import * as keys from './memory-keys.js';
import {
  ListEntrySchema,
  ScopeCountSchema,
  decodeMemory,
  decodeUserMeta,
  type ListEntry,
  type MemoryValue,
} from '../memory-values.js';
import { VectorValueReader } from './memory-vector-value.js';

/**
 * The reads of memory in a key-value store, each value checked (`memory-values.ts`): memories
 * by id, a page of the list index, a user's scopes, a scope's vectors.
 */

type Owner = string | undefined;

const CURSOR = /^m1\.(\d{1,12})$/;

/** How many memories a scope's count value says (0 when absent). */
export function scopeCount(key: string, stored: string | undefined): number {
  return stored === undefined ? 0 : decodeStored(key, stored, ScopeCountSchema).memories;
}

/** The stored memories of `ids` (`undefined` where the user has none), in `ids` order. */
export async function readMemoryValues(
  reader: KvReader,
  userId: Owner,
  ids: readonly string[],
): Promise<({ memory: Memory; value: MemoryValue } | undefined)[]> {
  const memoryKeys = ids.map((id) => keys.memoryKey(userId, id));
  const stored = await getAll(reader, memoryKeys);
  return stored.map((text, i) =>
    text === undefined ? undefined : decodeMemory(memoryKeys[i]!, text, ids[i]!, userId),
  );
}

/** The scopes of a user that hold memories, with how many, by scope key. */
export async function scopeCounts(
  backend: KvBackend,
  userId: Owner,
): Promise<{ part: string; resource: string | undefined; memories: number }[]> {
  const range = keys.scopeCountRange(userId);
  const scopes: { part: string; resource: string | undefined; memories: number }[] = [];
  for await (const [key, stored] of backend.iterate(range)) {
    const part = keys.scopePartOf(range, key);
    scopes.push({
      part,
      resource: keys.resourceOfScopePart(part),
      memories: scopeCount(key, stored),
    });
  }
  return scopes;
}

/** The dimension of a user's memories of `model` as stored (`undefined`: they have none). */
export async function storedDimensions(
  backend: KvBackend,
  userId: Owner,
  model: string,
): Promise<number | undefined> {
  const metaKey = keys.userMetaKey(userId);
  return decodeUserMeta(metaKey, await backend.get(metaKey)).models[model]?.dimensions;
}

/**
 * The vectors of one scope and model (`prefix`: their keys' start), read from the store, of the
 * dimension the user's memories of the model have (`fallback` when they have none). A vector of
 * another length is damage, unless the model's dimension changed while the scope was read (all
 * of its memories went and others came): then it is read again.
 */
export async function loadScope(
  backend: KvBackend,
  prefix: string,
  scope: { userId: Owner; resource: string | undefined; model: string },
  fallback: number,
): Promise<ScopeVectors> {
  const countKey = keys.scopeCountKey(scope.userId, scope.resource);
  for (;;) {
    const dimensions = (await storedDimensions(backend, scope.userId, scope.model)) ?? fallback;
    const rows = scopeCount(countKey, await backend.get(countKey));
    const vectors = new ScopeVectors(dimensions, rows);
    const reader = new VectorValueReader(dimensions);
    try {
      for await (const [key, stored] of backend.iterate(prefixRange(prefix))) {
        const { row, vector } = reader.read(key, idOfKey(key, prefix), stored);
        vectors.add(row, vector);
      }
      return vectors;
    } catch (error) {
      const now = await storedDimensions(backend, scope.userId, scope.model);
      if (now === undefined || now === dimensions) throw error;
    }
  }
}

/** The id at the end of a vector key of `prefix`. */
function idOfKey(key: string, prefix: string): string {
  try {
    return decodeURIComponent(key.slice(prefix.length));
  } catch (error) {
    throw new InvalidSessionRecordError(key, 'the key does not encode a memory id', {
      cause: error,
    });
  }
}

/** What a page of the list index holds: its entries, newest first, and whether more follow. */
export interface ListedEntries {
  entries: { seq: number; indexKey: string; entry: ListEntry }[];
  more: boolean;
}

/**
 * Up to `limit` entries of a user's list index (or a resource's) before the cursor's, newest
 * first, of one kind when asked (those of the other are read past).
 */
export async function listEntries(
  backend: KvBackend,
  query: {
    userId: Owner;
    resource: string | undefined;
    kind: MemoryKind | undefined;
    cursor: string | undefined;
    limit: number;
  },
): Promise<ListedEntries> {
  const { userId, resource, kind, limit } = query;
  const before = cursorSeq(query.cursor);
  // A resource's page reads its scope's index; a kind's reads past the other kind.
  const index =
    resource === undefined
      ? keys.listIndexRange(userId, before)
      : keys.scopeListRange(userId, resource, before);
  const range = { ...index, reverse: true };
  const entries: ListedEntries['entries'] = [];
  for await (const [indexKey, stored] of backend.iterate(range)) {
    const entry = decodeStored(indexKey, stored, ListEntrySchema);
    if (entry.resource !== resource && resource !== undefined) {
      throw new InvalidSessionRecordError(indexKey, 'the list entry is of another scope');
    }
    if (kind !== undefined && entry.kind !== kind) continue;
    if (entries.length === limit) return { entries, more: true };
    entries.push({ seq: keys.seqOfListIndexKey(indexKey), indexKey, entry });
  }
  return { entries, more: false };
}

/** The cursor of the page after one whose last entry is `seq`. */
export function cursorAfter(seq: number): string {
  return `m1.${seq}`;
}

/** The page position a cursor names (`undefined`: the first page). */
function cursorSeq(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const match = typeof cursor === 'string' ? CURSOR.exec(cursor) : null;
  if (!match) throw new TypeError('listMemories: the cursor is not one a page of this store gave');
  return Number(match[1]);
}
