import { describe, expect, it } from 'vitest';
import {
  VectorValueReader,
  encodeVectorValue,
} from '../../../src/persistence/kv/memory-vector-value.js';
import { sealValue } from '../../../src/persistence/sealed-value.js';

describe("a memory vector's stored value", () => {
  it('holds the float32 bytes little-endian as base64, with the kind and session, sealed', () => {
    const vector = new Float32Array([1.5, -2.25, 3e-8, 65504]);
    const stored = encodeVectorValue('v!k', { kind: 'message', sessionId: 's!1' }, vector);
    const bytes = Buffer.alloc(16);
    vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
    expect(stored.endsWith(`m!s%211!${bytes.toString('base64')}`)).toBe(true);
    const read = new VectorValueReader(4).read('v!k', 'id', stored);
    expect(read.row).toEqual({ id: 'id', kind: 'message', sessionId: 's!1' });
    expect([...read.vector]).toEqual([...vector]);
    const fact = encodeVectorValue('v!f', { kind: 'fact' }, vector);
    expect(new VectorValueReader(4).read('v!f', 'f', fact).row).toEqual({ id: 'f', kind: 'fact' });
  });

  it('refuses a value of another key, kind or length, naming its key', () => {
    const stored = encodeVectorValue('v!k', { kind: 'fact' }, new Float32Array([1, 2, 3, 4]));
    const reader = new VectorValueReader(4);
    const refused = { code: 'INVALID_SESSION_RECORD', key: 'v!other' };
    expect(() => reader.read('v!other', 'id', stored)).toThrow(
      expect.objectContaining(refused) as Error,
    );
    const text = stored.slice(9);
    expect(() => reader.read('v!other', 'id', sealValue('v!other', `x${text.slice(1)}`))).toThrow(
      expect.objectContaining(refused) as Error,
    );
    expect(() => new VectorValueReader(3).read('v!k', 'id', stored)).toThrow(
      expect.objectContaining({ code: 'INVALID_SESSION_RECORD', key: 'v!k' }) as Error,
    );
    expect(() => reader.read('v!other', 'id', sealValue('v!other', 'f!!AAAA'))).toThrow(
      expect.objectContaining(refused) as Error,
    );
  });
});
