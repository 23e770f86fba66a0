import { describe, expect, it } from 'vitest';
import { Item } from '../../src/items/item.js';
import { plainItem } from '../../src/items/plain-item.js';

/** One valid item of each kind the fast check handles, with and without optional fields. */
const VALID: Record<string, unknown>[] = [
  { type: 'message', role: 'user', content: 'hi' },
  { type: 'message', role: 'developer', content: '' },
  { type: 'message', role: 'system', content: 'be brief' },
  { type: 'message', role: 'assistant', content: 'hello' },
  { type: 'message', role: 'assistant', content: 'hello', agent: 'triage' },
  { type: 'tool_call', callId: 'c1', name: 'add', arguments: '{"a":1}' },
  { type: 'tool_call', callId: 'c1', name: 'add', arguments: '{}', agent: 'math' },
  { type: 'tool_result', callId: 'c1', name: 'add', output: '3' },
  { type: 'tool_result', callId: 'c1', name: 'add', output: 'boom', isError: true },
];

/** Kinds the fast check leaves to the schema (they must come back `undefined`). */
const OTHERS: Record<string, unknown>[] = [
  { type: 'message', role: 'user', content: [{ type: 'text', text: 'hi' }] },
  { type: 'reasoning', summary: ['thinking'] },
  { type: 'summary', content: 'earlier', upTo: 4 },
];

const ODD_VALUES: unknown[] = [undefined, null, 0, 1.5, true, false, '', 'x', [], {}, ['x']];

/** Each valid item changed one field at a time: removed, set to odd values, plus extra keys. */
function variants(item: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const field of [...Object.keys(item), 'agent', 'isError', 'content', 'role', 'type']) {
    const without = { ...item };
    delete without[field];
    out.push(without);
    for (const odd of ODD_VALUES) out.push({ ...item, [field]: odd });
  }
  out.push({ ...item, extra: 1 }, { extra: 1, ...item }, Object.values(item));
  out.push({ ...item, type: 'message', role: 'tool' }, { ...item, type: 'tool' });
  return out;
}

/** Whatever the fast check accepts, the schema accepts with the very same result. */
function expectSameAsSchema(value: unknown): void {
  const fast = plainItem(value);
  if (fast === undefined) return;
  const parsed = Item.safeParse(value);
  expect(parsed.success, JSON.stringify(value)).toBe(true);
  expect(Object.keys(fast)).toEqual(Object.keys(parsed.data!));
  expect(fast).toStrictEqual(parsed.data);
}

describe('plainItem (the fast check of common history items)', () => {
  it('accepts every common valid item, as the schema outputs it', () => {
    for (const item of VALID) {
      expect(plainItem(item), JSON.stringify(item)).toStrictEqual(Item.parse(item));
      expect(plainItem(JSON.parse(JSON.stringify(item)))).toStrictEqual(item);
    }
  });

  it('drops unknown fields in the schema order, as the schema does', () => {
    const item = { extra: 1, content: 'hi', role: 'user', type: 'message' };
    expect(JSON.stringify(plainItem(item))).toBe(JSON.stringify(Item.parse(item)));
  });

  it('leaves other kinds to the schema', () => {
    for (const item of OTHERS) {
      expect(Item.safeParse(item).success).toBe(true);
      expect(plainItem(item)).toBeUndefined();
    }
  });

  it('never accepts what the schema refuses, nor differs from it', () => {
    let refused = 0;
    for (const value of [...ODD_VALUES, ...VALID.flatMap(variants), ...OTHERS.flatMap(variants)]) {
      expectSameAsSchema(value);
      if (!Item.safeParse(value).success) {
        expect(plainItem(value), JSON.stringify(value)).toBeUndefined();
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(100);
  });
});
