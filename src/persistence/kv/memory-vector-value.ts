import { InvalidSessionRecordError } from '../../errors/session-errors.js';
import type { MemoryKind } from '../memory-store.js';
import { openValue, sealValue } from '../sealed-value.js';
import { escapeKeyPart } from '../session-keys.js';
import type { VectorRow } from '../vectors/scope-vectors.js';

/**
 * A memory's vector as the key-value stores keep it: one key per memory (`memory-keys.ts`),
 * whose value is `<kind: m | f>!<sessionId, escaped>!<base64 of the float32 bytes,
 * little-endian>` under the integrity seal. What a search needs of a row besides its vector
 * (kind, session) rides along, so loading a scope reads that one key range and nothing else.
 *
 * Why this layout: loading is the cost (a cold process searches a scope once, then keeps it
 * current), and base64 decodes at memory speed straight into a reused buffer. Measured on this
 * project's 2-core build machine (Node 20), a scope of 10,000 vectors of 1,536 dimensions is 82 MB
 * of values: reading them from LevelDB takes about 0.17 s, checking their seals 0.11 s, decoding
 * the base64 0.03 s, so the scope loads in about 0.3 s (0.5 to 1 s while other jobs held both
 * cores). The same vectors as JSON number arrays are 310 MB and took 7 s to parse. Values are
 * strings in the backends (LevelDB's utf8 encoding), so raw bytes cannot be stored as they are;
 * one key per memory keeps a write or a delete one op, with no block of vectors to rewrite.
 */

const KIND_LETTER: Record<MemoryKind, string> = { message: 'm', fact: 'f' };

/** Whether this machine stores a Float32Array's numbers little-endian (every platform Node runs on today). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The float32 bytes of `vector`, little-endian. */
function littleEndianBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  return LITTLE_ENDIAN ? bytes : Buffer.from(bytes).swap32();
}

/** The sealed value stored at a vector's `key`. */
export function encodeVectorValue(
  key: string,
  row: Omit<VectorRow, 'id'>,
  vector: Float32Array,
): string {
  const session = row.sessionId === undefined ? '' : escapeKeyPart(row.sessionId, 'sessionId');
  const text = `${KIND_LETTER[row.kind]}!${session}!${littleEndianBytes(vector).toString('base64')}`;
  return sealValue(key, text);
}

/**
 * Reads vector values of one dimension into a scratch buffer each, checked: a damaged seal, an
 * unknown kind or a vector of another length than the scope's is `InvalidSessionRecordError`
 * naming the key. The vector it answers is valid until the next `read` (copy it to keep it).
 */
export class VectorValueReader {
  private readonly scratch: Buffer;
  private readonly vector: Float32Array;

  constructor(readonly dimensions: number) {
    // Not from Buffer's pool: its own memory, aligned for the Float32Array over it.
    this.scratch = Buffer.alloc(dimensions * 4 + 4);
    this.vector = new Float32Array(this.scratch.buffer, this.scratch.byteOffset, dimensions);
  }

  read(key: string, id: string, stored: string): { row: VectorRow; vector: Float32Array } {
    const { json: text } = openValue(key, stored);
    const kindEnd = text.indexOf('!');
    const sessionEnd = text.indexOf('!', kindEnd + 1);
    const letter = text.slice(0, kindEnd);
    const kind = letter === 'm' ? 'message' : letter === 'f' ? 'fact' : undefined;
    if (kind === undefined || sessionEnd < 0) {
      throw new InvalidSessionRecordError(key, 'not a memory vector (kind!session!base64)');
    }
    const session = text.slice(kindEnd + 1, sessionEnd);
    const base64 = text.slice(sessionEnd + 1);
    const length = Buffer.byteLength(base64, 'base64');
    if (length !== this.dimensions * 4) {
      throw new InvalidSessionRecordError(
        key,
        `the vector holds ${length} bytes, the scope's vectors ${this.dimensions * 4}`,
      );
    }
    this.scratch.write(base64, 0, 'base64');
    if (!LITTLE_ENDIAN) this.scratch.subarray(0, length).swap32();
    const row: VectorRow = {
      id,
      kind,
      ...(session === '' ? {} : { sessionId: decodeURIComponent(session) }),
    };
    return { row, vector: this.vector };
  }
}
