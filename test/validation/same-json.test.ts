import { describe, expect, it } from 'vitest';
import { sameJson } from '../../src/validation/same-json.js';

describe('sameJson', () => {
  it('holds exactly when JSON.stringify would give equal values back', () => {
    const shared = { a: [1, { b: 'x' }] };
    expect(sameJson({ x: shared, y: 1 }, { y: 1, x: shared })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [1, 2] })).toBe(true);
    expect(sameJson(null, null)).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: [1] }, { a: { 0: 1 } })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
  });

  it('sees a change deep inside a copy of an unchanged tree', () => {
    const before = { context: { calls: [{ id: 'c1', done: false }] }, children: {} };
    const after = { ...before, context: { calls: [{ id: 'c1', done: true }] } };
    expect(sameJson(after, before)).toBe(false);
    expect(sameJson(structuredClone(before), before)).toBe(true);
  });
});
