/** How two sequences line up: the longest run of pairs that match in order, and the rest. */
export interface InOrderMatch {
  /** How many items of each side were matched, in order. */
  readonly matched: number;
  /** Indexes of the expected items left unmatched. */
  readonly missing: readonly number[];
  /** Indexes of the actual items left unmatched. */
  readonly extra: readonly number[];
}

/**
 * Matches `actual` against `expected` in order (a longest common subsequence under `same`): what
 * the scorers of sequences (tool calls, trajectories) count and name.
 */
export function matchInOrder<E, A>(
  expected: readonly E[],
  actual: readonly A[],
  same: (e: E, a: A) => boolean,
): InOrderMatch {
  const n = expected.length;
  const m = actual.length;
  // lengths[i][j]: the longest match of expected[i..] and actual[j..].
  const lengths = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i]![j] = same(expected[i]!, actual[j]!)
        ? lengths[i + 1]![j + 1]! + 1
        : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const missing: number[] = [];
  const extra: number[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (same(expected[i]!, actual[j]!) && lengths[i]![j] === lengths[i + 1]![j + 1]! + 1) {
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) {
      missing.push(i++);
    } else {
      extra.push(j++);
    }
  }
  while (i < n) missing.push(i++);
  while (j < m) extra.push(j++);
  return { matched: lengths[0]![0]!, missing, extra };
}

/** A text in a reason, cut to `max` characters. */
export function quoted(text: string | undefined, max = 120): string {
  if (text === undefined) return 'nothing';
  const json = JSON.stringify(text);
  return json.length > max ? `${json.slice(0, max - 4)}..."` : json;
}
