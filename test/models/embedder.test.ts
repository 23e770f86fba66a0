import { describe, expect, it } from 'vitest';
import { InvalidEmbeddingError } from '../../src/errors/memory-errors.js';
import { embedTexts, type Embedder } from '../../src/models/embedder.js';

/** An embedder answering `answer(texts)`, recording each call's texts. */
function fakeEmbedder(
  answer: (texts: readonly string[]) => Awaited<ReturnType<Embedder['embed']>>,
  fields: Partial<Pick<Embedder, 'maxBatch' | 'pricePerMillionTokens' | 'dimensions'>> = {},
): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    name: 'fake',
    dimensions: 2,
    ...fields,
    calls,
    embed(texts) {
      calls.push([...texts]);
      return Promise.resolve(answer(texts));
    },
  };
}

const twoD = (texts: readonly string[]) => ({
  vectors: texts.map((t) => [t.length, 1]),
  usage: { inputTokens: texts.length },
});

describe('embedTexts', () => {
  it('batches by maxBatch (96 by default), keeps the order, adds up usage and prices it', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => 'x'.repeat(i));
    const byDefault = fakeEmbedder(twoD);
    const result = await embedTexts(byDefault, texts);
    expect(byDefault.calls.map((c) => c.length)).toEqual([96, 96, 8]);
    expect(result.vectors.map((v) => v[0])).toEqual(texts.map((t) => t.length));
    expect(result.vectors[0]).toBeInstanceOf(Float32Array);
    expect(result.usage).toEqual({ inputTokens: 200 });
    expect(result.costUsd).toBe(0);

    const priced = fakeEmbedder(twoD, { maxBatch: 2, pricePerMillionTokens: 0.1 });
    const three = await embedTexts(priced, ['a', 'b', 'c']);
    expect(priced.calls).toEqual([['a', 'b'], ['c']]);
    expect(three.costUsd).toBe(0.0000003); // to twelve significant digits, not 3.0000000000000004e-7
  });

  it('counts usage that is missing, negative or not a number as 0', async () => {
    let call = 0;
    const usages = [
      { inputTokens: Number.NaN },
      { inputTokens: -5 },
      undefined,
      { inputTokens: 7 },
    ];
    const embedder = fakeEmbedder(
      (texts) =>
        ({
          vectors: texts.map(() => [0, 1]),
          usage: usages[call++],
        }) as Awaited<ReturnType<Embedder['embed']>>,
      { maxBatch: 1 },
    );
    expect((await embedTexts(embedder, ['a', 'b', 'c', 'd'])).usage).toEqual({ inputTokens: 7 });
  });

  it('refuses an answer that cannot be used: InvalidEmbeddingError naming the embedder', async () => {
    const answers: [unknown, RegExp][] = [
      [{ vectors: [[1, 2]] }, /answered 1 vectors for 2 texts/],
      [{}, /answered no vectors for 2 texts/],
      [{ vectors: [[1, 2], [1]] }, /a vector of 1 dimensions, it declares 2/],
      [{ vectors: [[1, 2], 'ab'] }, /a vector that is not an array of numbers/],
      [
        {
          vectors: [
            [1, 2],
            [Number.NaN, 0],
          ],
        },
        /a vector holding NaN at 0/,
      ],
      [{ vectors: [[1, 2], Float32Array.of(0, Infinity)] }, /a vector holding Infinity at 1/],
    ];
    for (const [answer, problem] of answers) {
      const embedder = fakeEmbedder(() => answer as Awaited<ReturnType<Embedder['embed']>>);
      const error = await embedTexts(embedder, ['a', 'b']).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidEmbeddingError);
      expect(error).toMatchObject({ code: 'INVALID_EMBEDDING', embedder: 'fake' });
      expect((error as Error).message).toMatch(problem);
    }
  });

  it('stops between batches once the signal is aborted', async () => {
    const controller = new AbortController();
    const embedder = fakeEmbedder(
      (texts) => {
        controller.abort(new Error('stopped'));
        return twoD(texts);
      },
      { maxBatch: 1 },
    );
    await expect(embedTexts(embedder, ['a', 'b'], controller.signal)).rejects.toThrow('stopped');
    expect(embedder.calls).toEqual([['a']]);
  });
});
