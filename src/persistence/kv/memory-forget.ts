import type { ForgetResult } from '../memory-store.js';
import { encodeStored } from '../session-schemas.js';
import { getAll, type KvOp, type KvReader } from './backends/kv-backend.js';
import * as keys from './memory-keys.js';
import { decodeUserMeta } from '../memory-values.js';
import { del, lowerModelCount, put, type Owner } from './memory-write-ops.js';

/** What a forget deletes, what it answers, and the cache prefix of the vectors it erases. */
export interface Forgetting {
  ops: KvOp[];
  forgot: ForgetResult;
  vectors: string;
}

/**
 * The ops of `forgetMemories` in a key-value store, read through `view` in the write's check.
 * The caller compacts the user's key range once they are written.
 */
export function forgetOps(
  view: KvReader,
  userId: Owner,
  resource: string | undefined,
  wholeUser: boolean,
): Promise<Forgetting> {
  return wholeUser ? forgetUser(view, userId) : forgetResource(view, userId, resource);
}

/** Every key of the user's memory deleted. */
async function forgetUser(view: KvReader, userId: Owner): Promise<Forgetting> {
  const range = keys.userMemoryRange(userId);
  const memoryPrefix = keys.memoryRange(userId).gte;
  const workingPrefix = keys.workingMemoryRange(userId).gte;
  const ops: KvOp[] = [];
  const forgot = { memories: 0, workingMemories: 0 };
  for await (const key of view.keys(range)) {
    ops.push(del(key));
    if (key.startsWith(memoryPrefix)) forgot.memories += 1;
    else if (key.startsWith(workingPrefix)) forgot.workingMemories += 1;
  }
  return { ops, forgot, vectors: range.gte };
}

/**
 * A scope's keys deleted: its vectors, memories, list entries (in its index and the user's, by
 * the sequence numbers its index holds), count and working memory, and the user's counts per
 * model lowered. A damaged value goes as the others do: the keys say what to delete.
 */
async function forgetResource(
  view: KvReader,
  userId: Owner,
  resource: string | undefined,
): Promise<Forgetting> {
  const vectorRange = keys.scopeVectorRange(userId, resource);
  const listRange = keys.scopeListRange(userId, resource);
  const metaKey = keys.userMetaKey(userId);
  const workingKey = keys.workingMemoryKey(userId, resource);
  const countKey = keys.scopeCountKey(userId, resource);
  const [rawMeta, rawWorking, rawCount] = await getAll(view, [metaKey, workingKey, countKey]);
  const meta = decodeUserMeta(metaKey, rawMeta);
  const ops: KvOp[] = [];
  let memories = 0;
  for await (const key of view.keys(vectorRange)) {
    const [model, id] = key.slice(vectorRange.gte.length).split('!') as [string, string];
    ops.push(del(key), del(keys.memoryKey(userId, decodeURIComponent(id))));
    lowerModelCount(meta, decodeURIComponent(model));
    memories += 1;
  }
  for await (const key of view.keys(listRange)) {
    ops.push(del(key), del(keys.listIndexKey(userId, keys.seqOfListIndexKey(key))));
  }
  if (memories) ops.push(put(metaKey, encodeStored(metaKey, meta)));
  if (rawCount !== undefined) ops.push(del(countKey));
  if (rawWorking !== undefined) ops.push(del(workingKey));
  return {
    ops,
    forgot: { memories, workingMemories: rawWorking === undefined ? 0 : 1 },
    vectors: vectorRange.gte,
  };
}
