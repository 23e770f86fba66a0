import { describe, expect, it } from 'vitest';
import { textBatches } from '../../src/models/text-batches.js';

describe('textBatches', () => {
  it('splits by count, in order', () => {
    const texts = ['a', 'b', 'c', 'd', 'e'];
    expect(textBatches(texts, 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(textBatches(texts, 10)).toEqual([texts]);
    expect(textBatches(texts, 0)).toEqual(texts.map((t) => [t])); // at least one a batch
    expect(textBatches([], 3)).toEqual([]);
  });

  it('splits by UTF-8 bytes too; a text larger than the budget goes alone', () => {
    // 'é' is two bytes: 'éé' is 4
    const texts = ['éé', 'ab', 'c', 'x'.repeat(9), 'd'];
    expect(textBatches(texts, 100, 6)).toEqual([['éé', 'ab'], ['c'], ['x'.repeat(9)], ['d']]);
    expect(textBatches(texts, 2, 7)).toEqual([['éé', 'ab'], ['c'], ['x'.repeat(9)], ['d']]);
    expect(textBatches(['abc', 'abc'], 5, 6)).toEqual([['abc', 'abc']]); // up to the budget
  });
});
