import { OptionChecker, optionNames } from '../validation/option-checks.js';
import type { Embedder, EmbeddingUsage } from './embedder.js';

/** Options of {@link scriptedEmbedder}. */
export interface ScriptedEmbedderOptions {
  /** How many numbers each vector has. @default 64 */
  dimensions?: number | undefined;
  /** The embedder's name (memories remember it). @default 'scripted' */
  name?: string | undefined;
  /** Most texts one call takes. @default `embedTexts`' default (96) */
  maxBatch?: number | undefined;
  /** USD per million tokens (a token is a word here). @default 0 (costs nothing, priced) */
  pricePerMillionTokens?: number | undefined;
}

/** The deterministic embedder of {@link scriptedEmbedder}, with what it was asked to embed. */
export interface ScriptedEmbedder extends Embedder {
  readonly dimensions: number;
  /** The texts of every call, one list per call, in order (a copy of each list). */
  readonly embedded: readonly (readonly string[])[];
}

/** Words left out: they would make every question look like every other. */
const STOP_WORDS = new Set(
  (
    'a an the and or but if of to in on at by for with from as is are am was were be been ' +
    'do does did have has had i me my mine you your we our they them their he she it its ' +
    'this that these those what which who whom when where why how not no so than there'
  ).split(' '),
);

/** Word endings removed from words longer than four letters, the longest first. */
const SUFFIXES = ['ing', 'ed', 'es', 's'];

const OPTION_NAMES = optionNames<ScriptedEmbedderOptions>({
  dimensions: true,
  name: true,
  maxBatch: true,
  pricePerMillionTokens: true,
});

/**
 * A deterministic, offline {@link Embedder} for tests and examples: texts that share words get
 * similar vectors, the same text the same vector in every process. A text is lower-cased and
 * split into words (letters and digits); a few stop words are dropped; each word is crudely
 * stemmed (`ing`, `ed`, `es`, `s` cut from words longer than four letters, then a final `e`
 * from words longer than three: `likes`, `liked`, `liking` and `like` are one word); each stem
 * adds 1 to one dimension, with a sign, both from its FNV-1a hash; the vector is L2-normalized.
 * A text with no word left (empty, or only stop words) gets the unit vector of dimension 0, so
 * no vector is all zeros. Usage counts a token per word. Every call's texts are kept in
 * `embedded`, so a test can check what was embedded and how it was batched.
 * @throws TypeError for an unknown option or a bad option value.
 * @example
 * const embedder = scriptedEmbedder();
 * // "I am allergic to peanuts" and "What am I allergic to?" score about 0.7 (cosine);
 * // a text sharing no word with them, about 0.
 */
export function scriptedEmbedder(options: ScriptedEmbedderOptions = {}): ScriptedEmbedder {
  new OptionChecker('scriptedEmbedder()', options, OPTION_NAMES)
    .positiveInteger('dimensions')
    .nonEmptyString('name')
    .positiveInteger('maxBatch')
    .nonNegativeNumber('pricePerMillionTokens');
  const dimensions = options.dimensions ?? 64;
  const embedded: string[][] = [];
  return {
    name: options.name ?? 'scripted',
    dimensions,
    maxBatch: options.maxBatch,
    pricePerMillionTokens: options.pricePerMillionTokens ?? 0,
    embedded,
    async embed(texts, { signal } = {}) {
      signal?.throwIfAborted();
      embedded.push([...texts]);
      let inputTokens = 0;
      const vectors = texts.map((text) => {
        const words = wordsOf(text);
        inputTokens += words.length;
        return vectorOf(words, dimensions);
      });
      const usage: EmbeddingUsage = { inputTokens };
      return { vectors, usage };
    },
  };
}

/** The lower-cased words of `text`: runs of letters and digits. */
function wordsOf(text: string): string[] {
  return (
    String(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** The crude stem of a word (see {@link scriptedEmbedder}). */
function stem(word: string): string {
  let out = word;
  if (out.length > 4) {
    const suffix = SUFFIXES.find((s) => out.endsWith(s) && !(s === 's' && out.endsWith('ss')));
    if (suffix) out = out.slice(0, -suffix.length);
  }
  return out.length > 3 && out.endsWith('e') ? out.slice(0, -1) : out;
}

/** FNV-1a, 32 bits, over the UTF-16 code units of `text`. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function vectorOf(words: readonly string[], dimensions: number): Float32Array {
  const sums = new Float64Array(dimensions);
  for (const word of words) {
    if (STOP_WORDS.has(word)) continue;
    const hash = fnv1a(stem(word));
    sums[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  let norm = 0;
  for (const value of sums) norm += value * value;
  const vector = new Float32Array(dimensions);
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) vector[i] = sums[i]! * scale;
  return vector;
}
