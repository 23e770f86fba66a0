import { InvalidMemoryError } from '../../errors/memory-errors.js';
import { dimensionMismatch, type CheckedMemory } from '../memory-checks.js';
import { encodeStored } from '../session-schemas.js';
import { getAll, type KvOp, type KvReader } from './backends/kv-backend.js';
import * as keys from './memory-keys.js';
import { scopeCount } from './memory-reads.js';
import {
  decodeUserMeta,
  memoryValue,
  type ListEntry,
  type MemoryValue,
  type UserMeta,
} from '../memory-values.js';
import { encodeVectorValue } from './memory-vector-value.js';

/**
 * The ops of memory's writes in a key-value store, built in a write's check from what `view`
 * reads (the store as the writes before it in its group leave it): every key a memory has, and
 * the counts beside them (the user's per model, the scope's), in one batch.
 */

export const put = (key: string, value: string): KvOp => ({ type: 'put', key, value });
export const del = (key: string): KvOp => ({ type: 'del', key });

/** A user, as memory's keys name them (`undefined`: the anonymous bucket). */
export type Owner = string | undefined;

/** A checked memory with its key. */
export interface KeyedMemory {
  memory: CheckedMemory;
  key: string;
}

/** A key of a memory, or `InvalidMemoryError` naming it when its id has no key (a lone surrogate). */
export function keyOf(id: string, key: () => string): string {
  try {
    return key();
  } catch (error) {
    throw new InvalidMemoryError(id, (error as Error).message);
  }
}

/**
 * The ops that keep the memories of `memories` their user has not (`fresh`): the memory, its
 * entries in the user's and its scope's list indexes at the user's next sequence number, its
 * vector, and the counts. A vector of another
 * dimension than the user's memories of its model have refuses the write whole.
 */
export async function putOps(
  view: KvReader,
  memories: readonly KeyedMemory[],
): Promise<{ ops: KvOp[]; fresh: CheckedMemory[] }> {
  const stored = await getAll(
    view,
    memories.map((m) => m.key),
  );
  const fresh = memories.filter((_, i) => stored[i] === undefined);
  const metas = await readMetas(
    view,
    fresh.map((f) => f.memory.userId),
  );
  const added = new Map<string, number>();
  const ops: KvOp[] = [];
  for (const { memory, key } of fresh) {
    const meta = metas.get(memory.userId)!;
    const model = meta.value.models[memory.model];
    const dimensions = memory.vector.length;
    if (model && model.dimensions !== dimensions) {
      throw dimensionMismatch(memory.id, memory.model, dimensions, model.dimensions);
    }
    meta.value.models[memory.model] = { dimensions, count: (model?.count ?? 0) + 1 };
    const seq = (meta.value.seq += 1);
    if (seq > keys.MAX_SEQ) throw new RangeError('putMemories: the user’s memory sequence is full');
    const vectorKey = keyOf(memory.id, () =>
      keys.vectorKey(memory.userId, memory.resource, memory.model, memory.id),
    );
    const entry: ListEntry = {
      id: memory.id,
      kind: memory.kind,
      ...(memory.resource === undefined ? {} : { resource: memory.resource }),
    };
    const indexKey = keys.listIndexKey(memory.userId, seq);
    const scopeIndexKey = keys.scopeListKey(memory.userId, memory.resource, seq);
    ops.push(
      put(key, encodeStored(key, memoryValue(memory, seq))),
      put(indexKey, encodeStored(indexKey, entry)),
      put(scopeIndexKey, encodeStored(scopeIndexKey, entry)),
      put(vectorKey, encodeVectorValue(vectorKey, memory, memory.vector)),
    );
    const countKey = keys.scopeCountKey(memory.userId, memory.resource);
    added.set(countKey, (added.get(countKey) ?? 0) + 1);
  }
  for (const meta of metas.values()) {
    if (meta.value.seq !== meta.seqBefore)
      ops.push(put(meta.key, encodeStored(meta.key, meta.value)));
  }
  ops.push(...(await countOps(view, added)));
  return { ops, fresh: fresh.map((f) => f.memory) };
}

/** The ops that remove stored memories of one user, and lower the counts. */
export async function deleteOps(
  view: KvReader,
  userId: Owner,
  gone: readonly MemoryValue[],
): Promise<KvOp[]> {
  const ops: KvOp[] = [];
  const metaKey = keys.userMetaKey(userId);
  const meta = decodeUserMeta(metaKey, await view.get(metaKey));
  const removed = new Map<string, number>();
  for (const value of gone) {
    ops.push(
      del(keys.memoryKey(userId, value.id)),
      del(keys.listIndexKey(userId, value.seq)),
      del(keys.scopeListKey(userId, value.resource, value.seq)),
      del(keys.vectorKey(userId, value.resource, value.model, value.id)),
    );
    lowerModelCount(meta, value.model);
    const countKey = keys.scopeCountKey(userId, value.resource);
    removed.set(countKey, (removed.get(countKey) ?? 0) - 1);
  }
  ops.push(put(metaKey, encodeStored(metaKey, meta)));
  ops.push(...(await countOps(view, removed)));
  return ops;
}

/** One memory of `model` fewer in the user's counts (the model's entry goes with its last). */
export function lowerModelCount(meta: UserMeta, model: string): void {
  const known = meta.models[model];
  if (known && known.count > 1) known.count -= 1;
  else delete meta.models[model];
}

/** The scope counts moved by `change` (a scope left with none loses its count key). */
async function countOps(view: KvReader, change: ReadonlyMap<string, number>): Promise<KvOp[]> {
  const countKeys = [...change.keys()];
  const before = await getAll(view, countKeys);
  return countKeys.map((countKey, i) => {
    const memories = scopeCount(countKey, before[i]) + change.get(countKey)!;
    return memories > 0 ? put(countKey, encodeStored(countKey, { memories })) : del(countKey);
  });
}

/** Each user's stored meta, read once per user (`seqBefore`: whether a write changed it). */
async function readMetas(
  view: KvReader,
  userIds: readonly Owner[],
): Promise<Map<Owner, { key: string; value: UserMeta; seqBefore: number }>> {
  const users = [...new Set(userIds)];
  const metaKeys = users.map((userId) => keys.userMetaKey(userId));
  const stored = await getAll(view, metaKeys);
  return new Map(
    users.map((userId, i) => {
      const value = decodeUserMeta(metaKeys[i]!, stored[i]);
      return [userId, { key: metaKeys[i]!, value, seqBefore: value.seq }];
    }),
  );
}
