import { getRandomValues } from 'node:crypto';
import { monotonicFactory, ulid } from 'ulid';

/**
 * Process-wide state, on purpose: a buffer of not yet used OS random bytes and its cursor.
 * It holds no identity, order or configuration (each `monotonicIds()` source keeps its own
 * last time and counter), so sharing it can change no id's meaning, and nothing needs to reset
 * it: a pool per runtime would add a 256-byte OS read per runtime and an id source threaded
 * through every action for no behaviour a caller can see. Bytes are used once, in order; a
 * forked worker (a new process) starts with its own module and pool.
 */
const pool = new Uint8Array(256);
let next = pool.length;

/** Cryptographic random bytes, fetched 256 at a time, as ulid's `[0, 1)` PRNG. */
function pooledRandom(): number {
  if (next === pool.length) {
    getRandomValues(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/**
 * A new ULID. `ulid()` alone detects its PRNG and asks the OS for one byte per character on
 * every call (about 20 us an id, once per message); this draws from a pooled buffer instead.
 */
export function newId(): string {
  return ulid(undefined, pooledRandom);
}

/** A source of ULIDs that grow with each call, also within one millisecond (pooled randomness). */
export function monotonicIds(): () => string {
  const factory = monotonicFactory(pooledRandom);
  return () => factory();
}
