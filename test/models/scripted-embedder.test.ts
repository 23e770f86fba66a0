import { describe, expect, it } from 'vitest';
import { embedTexts } from '../../src/models/embedder.js';
import {
  scriptedEmbedder,
  type ScriptedEmbedderOptions,
} from '../../src/models/scripted-embedder.js';

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
};

/** The vector of each text, through `embedTexts` (so every vector is checked too). */
const vectors = async (texts: string[], options?: ScriptedEmbedderOptions) =>
  (await embedTexts(scriptedEmbedder(options), texts)).vectors;

describe('scriptedEmbedder', () => {
  it('scores a question about a stated fact well above unrelated texts', async () => {
    const [fact, question, ...unrelated] = await vectors([
      'I am allergic to peanuts',
      'What am I allergic to?',
      'The weather in Paris is sunny today',
      'Please book a table for two at eight',
      'My favourite colour is green',
      'How do I reset my password?',
    ]);
    const related = cosine(fact!, question!);
    expect(related).toBeGreaterThan(0.6);
    for (const other of unrelated) {
      expect(cosine(question!, other)).toBeLessThan(related - 0.3);
      expect(cosine(fact!, other)).toBeLessThan(related - 0.3);
    }
  });

  it('stems words crudely, ignores case and punctuation, and is the same in every call', async () => {
    const embedder = scriptedEmbedder();
    const first = await embedTexts(embedder, [
      'She likes hiking.',
      'LIKED hike!',
      'liking, hikes',
      'like   hiking',
    ]);
    const again = await embedTexts(scriptedEmbedder(), ['She likes hiking.']);
    for (const v of first.vectors.slice(1)) expect(cosine(first.vectors[0]!, v)).toBeCloseTo(1, 6);
    expect(again.vectors[0]).toEqual(first.vectors[0]);
  });

  it('L2-normalizes, and gives a text with no word left the unit vector of dimension 0', async () => {
    const [plain, repeated, empty, stops] = await vectors(
      ['peanuts butter', 'peanut peanuts peanut butter', '', 'What is it? To be or not to be'],
      { dimensions: 16 },
    );
    for (const v of [plain!, repeated!]) {
      expect(v).toHaveLength(16);
      expect(Math.hypot(...v)).toBeCloseTo(1, 6);
    }
    // occurrences count: 3 x peanut + 1 x butter is not the same direction as 1 + 1
    expect(cosine(plain!, repeated!)).toBeLessThan(0.99);
    const unit = new Float32Array(16);
    unit[0] = 1;
    expect(empty).toEqual(unit);
    expect(stops).toEqual(unit);
  });

  it('records what each call embedded, so batching shows; usage counts words', async () => {
    const embedder = scriptedEmbedder({ maxBatch: 2, name: 'words', dimensions: 8 });
    const result = await embedTexts(embedder, ['one two', 'three', 'four five six', '']);
    expect(embedder.embedded).toEqual([
      ['one two', 'three'],
      ['four five six', ''],
    ]);
    expect(result.usage).toEqual({ inputTokens: 6 });
    expect(result.costUsd).toBe(0);
    expect(embedder).toMatchObject({ name: 'words', dimensions: 8, pricePerMillionTokens: 0 });
    const priced = scriptedEmbedder({ pricePerMillionTokens: 2 });
    expect((await embedTexts(priced, ['a b c d'])).costUsd).toBeCloseTo((4 * 2) / 1e6, 15);
  });

  it('defaults to 64 dimensions named scripted, and refuses bad options', async () => {
    expect(scriptedEmbedder()).toMatchObject({ name: 'scripted', dimensions: 64 });
    expect((await vectors(['x']))[0]).toHaveLength(64);
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ dimensions: 0 }, /option "dimensions" must be a positive integer/],
      [{ dimensions: 2.5 }, /option "dimensions" must be a positive integer/],
      [{ name: '' }, /option "name" must be a non-empty string/],
      [{ maxBatch: -1 }, /option "maxBatch" must be a positive integer/],
      [{ dimension: 8 }, /unknown option "dimension" \(did you mean "dimensions"\?\)/],
    ];
    for (const [options, message] of bad) {
      expect(() => scriptedEmbedder(options as ScriptedEmbedderOptions)).toThrow(message);
    }
  });

  it('stops at an aborted signal', async () => {
    const embedder = scriptedEmbedder();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(embedder.embed(['a'], { signal: controller.signal })).rejects.toThrow('stop');
    expect(embedder.embedded).toEqual([]);
  });
});
