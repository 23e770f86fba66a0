import { InvalidMemoryError } from '../errors/memory-errors.js';
import { isPlainName } from '../validation/plain-name.js';
import type {
  MemoryInput,
  MemoryListQuery,
  MemoryScope,
  MemorySearch,
  WorkingMemoryWrite,
} from './memory-store.js';

/**
 * The checks every store runs on what it is asked to keep or search, before anything is read
 * or written: the same in each store, so a bad vector is the same `InvalidMemoryError` on
 * LevelDB and PostgreSQL. Options a program passed wrongly (a `topK` of 0) are `TypeError`s.
 */

const MAX_DIMENSIONS = 16_000;
const MAX_TEXT = 32_000;

/** A memory's vector as a `Float32Array`, checked: 1 to 16,000 finite numbers, not all zero. */
export function checkedVector(id: string | undefined, vector: unknown): Float32Array {
  if (!(vector instanceof Float32Array) && !Array.isArray(vector)) {
    throw new InvalidMemoryError(id, 'its vector is not an array of numbers');
  }
  const length = (vector as ArrayLike<unknown>).length;
  if (length === 0 || length > MAX_DIMENSIONS) {
    throw new InvalidMemoryError(
      id,
      `its vector has ${length} dimensions (1 to ${MAX_DIMENSIONS})`,
    );
  }
  const out = new Float32Array(length);
  let nonZero = false;
  for (let i = 0; i < length; i++) {
    const v = (vector as ArrayLike<unknown>)[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new InvalidMemoryError(
        id,
        `its vector holds ${String(v)} at ${i}: every value must be a finite number`,
      );
    }
    out[i] = v;
    if (!Number.isFinite(out[i]!)) {
      throw new InvalidMemoryError(
        id,
        `its vector's value ${v} at ${i} is out of 32-bit float range`,
      );
    }
    if (v !== 0) nonZero = true;
  }
  if (!nonZero)
    throw new InvalidMemoryError(id, 'its vector is all zeros (no direction to compare)');
  return out;
}

/** A scope's resource, checked (`undefined`: the user's own scope). */
export function checkedResource(resource: unknown): string | undefined {
  if (resource === undefined) return undefined;
  if (!isPlainName(resource, 200)) {
    throw new TypeError('memory resource: expected 1 to 200 characters without control characters');
  }
  return resource;
}

/** A scope's user, checked (`undefined`: the anonymous bucket). */
export function checkedUser(userId: unknown): string | undefined {
  if (userId === undefined) return undefined;
  if (typeof userId !== 'string' || userId.length === 0) {
    throw new TypeError(
      'memory userId: expected a non-empty string (or none, for the anonymous bucket)',
    );
  }
  return userId;
}

export function checkedScope(scope: MemoryScope): MemoryScope {
  return { userId: checkedUser(scope.userId), resource: checkedResource(scope.resource) };
}

/** A memory checked whole, its vector as a `Float32Array` (`InvalidMemoryError` naming it). */
export type CheckedMemory = Omit<MemoryInput, 'vector'> & { vector: Float32Array };

/**
 * Memories checked before a write: each valid, no id twice, one dimension per model among
 * them. The store checks the dimension against what the scope holds already.
 */
export function checkedMemories(memories: readonly MemoryInput[]): CheckedMemory[] {
  const list: readonly MemoryInput[] = memories;
  const given: unknown = memories;
  if (!Array.isArray(given)) throw new TypeError('putMemories: expected an array of memories');
  const seen = new Set<string>();
  const dims = new Map<string, number>();
  return list.map((m) => {
    const id = typeof m?.id === 'string' ? m.id : undefined;
    if (!isPlainName(id, 400)) {
      throw new InvalidMemoryError(
        id,
        'its id must be 1 to 400 characters without control characters',
      );
    }
    // ids are unique per user: two users may each have one
    const owned = `${typeof m.userId === 'string' ? `u${m.userId}` : 'a'}\u0000${id}`;
    if (seen.has(owned)) throw new InvalidMemoryError(id, 'the write holds this id twice');
    seen.add(owned);
    if (m.kind !== 'message' && m.kind !== 'fact') {
      throw new InvalidMemoryError(id, `its kind is ${String(m.kind)} (message or fact)`);
    }
    if (typeof m.text !== 'string' || m.text.length === 0 || m.text.length > MAX_TEXT) {
      throw new InvalidMemoryError(id, `its text must be 1 to ${MAX_TEXT} characters`);
    }
    if (m.role !== undefined && m.role !== 'user' && m.role !== 'assistant') {
      throw new InvalidMemoryError(id, `its role is ${String(m.role)} (user or assistant)`);
    }
    if (m.sessionId !== undefined && (typeof m.sessionId !== 'string' || m.sessionId === '')) {
      throw new InvalidMemoryError(id, 'its sessionId must be a non-empty string');
    }
    if (m.position !== undefined && !(Number.isSafeInteger(m.position) && m.position >= 0)) {
      throw new InvalidMemoryError(id, 'its position must be a non-negative integer');
    }
    if (!(Number.isSafeInteger(m.at) && m.at >= 0)) {
      throw new InvalidMemoryError(id, 'its time (at) must be epoch milliseconds');
    }
    if (typeof m.model !== 'string' || m.model.length === 0 || m.model.length > 200) {
      throw new InvalidMemoryError(id, 'its embedding model name must be 1 to 200 characters');
    }
    const vector = checkedVector(id, m.vector);
    const known = dims.get(m.model);
    if (known !== undefined && known !== vector.length) {
      throw new InvalidMemoryError(
        id,
        `its vector has ${vector.length} dimensions, another memory of this write by "${m.model}" has ${known}`,
      );
    }
    dims.set(m.model, vector.length);
    let resource: string | undefined;
    try {
      resource = checkedResource(m.resource);
      checkedUser(m.userId);
    } catch (error) {
      throw new InvalidMemoryError(id, (error as Error).message);
    }
    return {
      id,
      kind: m.kind,
      text: m.text,
      at: m.at,
      model: m.model,
      vector,
      ...(m.userId === undefined ? {} : { userId: m.userId }),
      ...(resource === undefined ? {} : { resource }),
      ...(m.role === undefined ? {} : { role: m.role }),
      ...(m.sessionId === undefined ? {} : { sessionId: m.sessionId }),
      ...(m.position === undefined ? {} : { position: m.position }),
    };
  });
}

/** The error a memory of another dimension than its scope's gets. */
export function dimensionMismatch(
  id: string,
  model: string,
  got: number,
  stored: number,
): InvalidMemoryError {
  return new InvalidMemoryError(
    id,
    `its vector has ${got} dimensions, the memories of "${model}" stored for this user have ${stored}`,
  );
}

/** A search checked: `TypeError` for a bad option, `InvalidMemoryError` for a bad vector. */
export function checkedSearch(query: MemorySearch): MemorySearch & { vector: Float32Array } {
  const topK = query.topK;
  if (!Number.isInteger(topK) || topK < 1 || topK > 1000) {
    throw new TypeError(
      `searchMemories: topK must be an integer from 1 to 1000, got ${String(topK)}`,
    );
  }
  if (
    query.minScore !== undefined &&
    !(typeof query.minScore === 'number' && query.minScore >= -1 && query.minScore <= 1)
  ) {
    throw new TypeError('searchMemories: minScore must be a number from -1 to 1');
  }
  if (typeof query.model !== 'string' || query.model.length === 0) {
    throw new TypeError('searchMemories: model must name the embedding model');
  }
  if (query.kinds !== undefined && !query.kinds.every((k) => k === 'message' || k === 'fact')) {
    throw new TypeError('searchMemories: kinds must be "message" or "fact"');
  }
  return {
    ...query,
    userId: checkedUser(query.userId),
    resource: checkedResource(query.resource),
    vector: checkedVector(undefined, query.vector),
  };
}

/** A list query's page size (default 50, at most 1,000). */
export function checkedListLimit(query: MemoryListQuery): number {
  const limit = query.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new TypeError(
      `listMemories: limit must be an integer from 1 to 1000, got ${String(limit)}`,
    );
  }
  return limit;
}

/** A working-memory write checked: plain JSON content, a version, an op id, a time. */
export function checkedWorkingMemoryWrite(write: WorkingMemoryWrite): WorkingMemoryWrite {
  if (!Number.isInteger(write.expectedVersion) || write.expectedVersion < 0) {
    throw new TypeError('writeWorkingMemory: expectedVersion must be a non-negative integer');
  }
  if (typeof write.opId !== 'string' || write.opId.length === 0 || write.opId.length > 400) {
    throw new TypeError('writeWorkingMemory: opId must be 1 to 400 characters');
  }
  if (!(Number.isSafeInteger(write.at) && write.at >= 0)) {
    throw new TypeError('writeWorkingMemory: at must be epoch milliseconds');
  }
  const content = write.content;
  if (
    typeof content !== 'string' &&
    (typeof content !== 'object' || content === null || Array.isArray(content))
  ) {
    throw new TypeError('writeWorkingMemory: content must be a string or a plain object');
  }
  try {
    JSON.stringify(content);
  } catch {
    throw new TypeError('writeWorkingMemory: content must be plain JSON');
  }
  return write;
}

/** How many op ids a working-memory document remembers (a retry older than that is applied again). */
export const APPLIED_OPS = 64;

/**
 * The ids `getMemories` or `deleteMemories` was given, each once, those no memory can have (empty,
 * over 400 characters) left out; not an array of strings: `TypeError`.
 */
export function checkedIds(call: string, ids: readonly string[]): string[] {
  const given: unknown = ids;
  if (!Array.isArray(given) || !given.every((id) => typeof id === 'string')) {
    throw new TypeError(`${call}: expected an array of memory ids`);
  }
  return [...new Set(ids)].filter((id) => id.length > 0 && id.length <= 400);
}
