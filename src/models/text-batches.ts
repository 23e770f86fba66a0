/**
 * `texts` in consecutive batches, in order, of at most `maxTexts` texts and `maxBytes` bytes of
 * UTF-8 text each (a single text larger than `maxBytes` makes a batch of its own: the model
 * answers for it). Bytes bound tokens: no tokenizer makes more tokens than a text has bytes, so
 * a byte budget keeps a request under a token limit of the same number.
 */
export function textBatches(
  texts: readonly string[],
  maxTexts: number,
  maxBytes = Number.POSITIVE_INFINITY,
): string[][] {
  const size = Math.max(1, Math.floor(maxTexts));
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    const length = maxBytes === Number.POSITIVE_INFINITY ? 0 : Buffer.byteLength(text, 'utf8');
    if (batch.length > 0 && (batch.length >= size || bytes + length > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(text);
    bytes += length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
