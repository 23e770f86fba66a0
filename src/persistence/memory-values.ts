import { z } from 'zod';
import { InvalidSessionRecordError } from '../errors/session-errors.js';
import type { CheckedMemory } from './memory-checks.js';
import type { Memory, WorkingMemoryRecord } from './memory-store.js';
import { decodeStored } from './session-schemas.js';

/**
 * The values of memory across sessions as the stores keep them (the key-value stores' keys are in
 * `kv/memory-keys.ts`; PostgreSQL seals a memory's value and its working memory alike, beside the
 * columns its queries filter on), each JSON under the integrity seal and checked by its schema
 * when read: a damaged value is `InvalidSessionRecordError` naming its key, as a damaged history
 * item is.
 */

const KindSchema = z.enum(['message', 'fact']);

/** A memory without its vector (`y!<owner>!k!<id>`); `seq` files it in the list index. */
export const MemoryValueSchema = z.object({
  id: z.string().min(1),
  resource: z.string().min(1).optional(),
  kind: KindSchema,
  text: z.string().min(1),
  role: z.enum(['user', 'assistant']).optional(),
  sessionId: z.string().min(1).optional(),
  position: z.number().int().nonnegative().optional(),
  at: z.number().int().nonnegative(),
  model: z.string().min(1),
  dimensions: z.number().int().positive(),
  seq: z.number().int().nonnegative(),
});
export type MemoryValue = z.output<typeof MemoryValueSchema>;

/** A list index entry (`y!<owner>!i!<seq>`): enough to filter a page without the memories. */
export const ListEntrySchema = z.object({
  id: z.string().min(1),
  resource: z.string().min(1).optional(),
  kind: KindSchema,
});
export type ListEntry = z.output<typeof ListEntrySchema>;

/** A user's sequence and, per embedding model, the dimension and count of their memories. */
export const UserMetaSchema = z.object({
  seq: z.number().int().nonnegative(),
  models: z.record(
    z.string(),
    z.object({ dimensions: z.number().int().positive(), count: z.number().int().positive() }),
  ),
});
export type UserMeta = z.output<typeof UserMetaSchema>;

/** How many memories a scope holds (`y!<owner>!z!<scope>`; absent: none). */
export const ScopeCountSchema = z.object({ memories: z.number().int().positive() });

/** A scope's working memory with the op ids it took (the latest `APPLIED_OPS`). */
export const WorkingMemoryValueSchema = z.object({
  content: z.union([z.string(), z.record(z.string(), z.unknown())]),
  version: z.number().int().positive(),
  updatedAt: z.number().int().nonnegative(),
  ops: z.array(z.string().min(1)),
});
export type WorkingMemoryValue = z.output<typeof WorkingMemoryValueSchema>;

/** The stored value of a checked memory, filed at `seq`. */
export function memoryValue(memory: CheckedMemory, seq: number): MemoryValue {
  return {
    id: memory.id,
    ...(memory.resource === undefined ? {} : { resource: memory.resource }),
    kind: memory.kind,
    text: memory.text,
    ...(memory.role === undefined ? {} : { role: memory.role }),
    ...(memory.sessionId === undefined ? {} : { sessionId: memory.sessionId }),
    ...(memory.position === undefined ? {} : { position: memory.position }),
    at: memory.at,
    model: memory.model,
    dimensions: memory.vector.length,
    seq,
  };
}

/** The memory stored at `key` (its id checked against the one the key names). */
export function decodeMemory(
  key: string,
  stored: string,
  id: string,
  userId: string | undefined,
): { memory: Memory; value: MemoryValue } {
  const value = decodeStored(key, stored, MemoryValueSchema);
  if (value.id !== id) throw new InvalidSessionRecordError(key, 'memory id differs from its key');
  const memory: Memory = {
    id: value.id,
    ...(userId === undefined ? {} : { userId }),
    ...(value.resource === undefined ? {} : { resource: value.resource }),
    kind: value.kind,
    text: value.text,
    ...(value.role === undefined ? {} : { role: value.role }),
    ...(value.sessionId === undefined ? {} : { sessionId: value.sessionId }),
    ...(value.position === undefined ? {} : { position: value.position }),
    at: value.at,
    model: value.model,
    dimensions: value.dimensions,
  };
  return { memory, value };
}

export function decodeUserMeta(key: string, stored: string | undefined): UserMeta {
  return stored === undefined ? { seq: 0, models: {} } : decodeStored(key, stored, UserMetaSchema);
}

export function decodeWorkingMemory(
  key: string,
  stored: string | undefined,
): WorkingMemoryValue | undefined {
  return stored === undefined ? undefined : decodeStored(key, stored, WorkingMemoryValueSchema);
}

/** A working memory as read back (without its op ids). */
export function workingMemoryRecord(value: WorkingMemoryValue): WorkingMemoryRecord {
  return { content: value.content, version: value.version, updatedAt: value.updatedAt };
}
