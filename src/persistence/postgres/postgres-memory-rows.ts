import { endianness } from 'node:os';
import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { CheckedMemory } from '../memory-checks.js';
import type { Memory } from '../memory-store.js';
import {
  decodeMemory as decodeStoredMemory,
  decodeWorkingMemory as decodeStoredWorkingMemory,
  memoryValue,
  type WorkingMemoryValue,
} from '../memory-values.js';
import { encodeStored } from '../session-schemas.js';
import * as keys from '../session-keys.js';

/**
 * The stored forms of memory in PostgreSQL. A memory row's values are one sealed JSON text
 * (`memory`, the stores' `MemoryValue` under the key `mem!<owner>!<id>`: a row copied to another
 * user or id fails its seal) beside the columns its queries filter on; its vector is little-endian float32 bytes
 * (`vector`, without pgvector) or a pgvector `embedding`. A scope's working memory is one
 * sealed document (`wm!<owner>!<resource>`) holding its content, version and latest op ids.
 * The own scope of a user is the resource `''` (a resource names 1 to 200 characters).
 */

/** A memory row as the queries read it. */
export interface MemoryRow {
  id: string;
  resource: string;
  memory: string;
}

/** The resource column of a scope: `''` for the user's own scope. */
export const resourceColumn = (resource: string | undefined): string => resource ?? '';

const memoryKey = (owner: string, id: string): string => `mem!${owner}!${id}`;
const workingKey = (owner: string, resource: string): string => `wm!${owner}!${resource}`;

/** The sealed `memory` text of a checked memory, its user's write number `seq`. */
export function encodeMemory(owner: string, memory: CheckedMemory, seq: number): string {
  return encodeStored(memoryKey(owner, memory.id), memoryValue(memory, seq));
}

/** A memory row read back; a damaged or moved one is `InvalidSessionRecordError` naming its key. */
export function decodeMemory(owner: string, row: MemoryRow): Memory {
  const userId = keys.userOfOwnerPart(owner);
  const key = memoryKey(owner, row.id);
  const { memory } = decodeStoredMemory(key, row.memory, row.id, userId);
  if ((memory.resource ?? '') !== row.resource) {
    throw new InvalidSessionRecordError(key, 'memory resource differs from its row');
  }
  return memory;
}

export function encodeWorkingMemory(
  owner: string,
  resource: string,
  doc: WorkingMemoryValue,
): string {
  return encodeStored(workingKey(owner, resource), doc);
}

export function decodeWorkingMemory(
  owner: string,
  resource: string,
  doc: string | undefined,
): WorkingMemoryValue | undefined {
  return decodeStoredWorkingMemory(workingKey(owner, resource), doc);
}

/** A vector's bytes: little-endian float32, as every store keeps them. */
export function vectorBytes(vector: Float32Array): Buffer {
  if (endianness() === 'LE') {
    return Buffer.from(
      vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
    );
  }
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes;
}

/** The vector of stored bytes (`undefined` when their length is not `dimensions` floats). */
export function bytesVector(bytes: Buffer, dimensions: number): Float32Array | undefined {
  if (bytes.length !== dimensions * 4) return undefined;
  if (endianness() === 'LE') {
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  }
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

/** A vector in pgvector's text form (`[1,0.5,...]`), each float32 read back exactly. */
export function vectorText(vector: Float32Array): string {
  return `[${vector.join(',')}]`;
}
