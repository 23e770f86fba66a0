import { z } from 'zod';
import type { CheckedMemory } from '../memory-checks.js';
import type { Memory, WorkingMemoryRecord } from '../memory-store.js';
import { decodeStored, encodeStored } from '../session-schemas.js';
import * as keys from '../session-keys.js';

/**
 * The stored forms of memory in PostgreSQL. A memory row's values are one sealed JSON text
 * (`memory`, under the key `mem!<owner>!<id>`: a row copied to another user or id fails its
 * seal) beside the columns its queries filter on; its vector is little-endian float32 bytes
 * (`vector`, without pgvector) or a pgvector `embedding`. A scope's working memory is one
 * sealed document (`wm!<owner>!<resource>`) holding its content, version and latest op ids.
 * The own scope of a user is the resource `''` (a resource names 1 to 200 characters).
 */

const StoredMemorySchema = z.object({
  kind: z.enum(['message', 'fact']),
  text: z.string().min(1),
  role: z.enum(['user', 'assistant']).optional(),
  sessionId: z.string().min(1).optional(),
  position: z.number().int().nonnegative().optional(),
  at: z.number().int().nonnegative(),
  model: z.string().min(1),
  dimensions: z.number().int().positive(),
});

const StoredWorkingMemorySchema = z.object({
  content: z.union([z.string(), z.record(z.string(), z.unknown())]),
  version: z.number().int().positive(),
  updatedAt: z.number().int().nonnegative(),
  ops: z.array(z.string()),
});

/** A memory row as the queries read it. */
export interface MemoryRow {
  id: string;
  resource: string;
  memory: string;
}

/** A stored working-memory document: the record and the op ids it took (latest last). */
export type StoredWorkingMemory = WorkingMemoryRecord & { ops: string[] };

/** The resource column of a scope: `''` for the user's own scope. */
export const resourceColumn = (resource: string | undefined): string => resource ?? '';

const memoryKey = (owner: string, id: string): string => `mem!${owner}!${id}`;
const workingKey = (owner: string, resource: string): string => `wm!${owner}!${resource}`;

/** The sealed `memory` text of a checked memory. */
export function encodeMemory(owner: string, m: CheckedMemory): string {
  return encodeStored(memoryKey(owner, m.id), {
    kind: m.kind,
    text: m.text,
    ...(m.role === undefined ? {} : { role: m.role }),
    ...(m.sessionId === undefined ? {} : { sessionId: m.sessionId }),
    ...(m.position === undefined ? {} : { position: m.position }),
    at: m.at,
    model: m.model,
    dimensions: m.vector.length,
  });
}

/** A memory row read back; a damaged one is `InvalidSessionRecordError` naming its key. */
export function decodeMemory(owner: string, row: MemoryRow): Memory {
  const value = decodeStored(memoryKey(owner, row.id), row.memory, StoredMemorySchema);
  const userId = keys.userOfOwnerPart(owner);
  return {
    id: row.id,
    ...(userId === undefined ? {} : { userId }),
    ...(row.resource === '' ? {} : { resource: row.resource }),
    ...value,
  };
}

export function encodeWorkingMemory(
  owner: string,
  resource: string,
  doc: StoredWorkingMemory,
): string {
  return encodeStored(workingKey(owner, resource), doc);
}

export function decodeWorkingMemory(
  owner: string,
  resource: string,
  doc: string,
): StoredWorkingMemory {
  return decodeStored(workingKey(owner, resource), doc, StoredWorkingMemorySchema);
}

/** A vector's bytes: little-endian float32, as every store keeps them. */
export function vectorBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes;
}

/** The vector of stored bytes (`undefined` when their length is not `dimensions` floats). */
export function bytesVector(bytes: Buffer, dimensions: number): Float32Array | undefined {
  if (bytes.length !== dimensions * 4) return undefined;
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

/** A vector in pgvector's text form (`[1,0.5,...]`), each float32 read back exactly. */
export function vectorText(vector: Float32Array): string {
  return `[${vector.join(',')}]`;
}
