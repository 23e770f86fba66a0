/** Compares names the way people mistype them: case, `_` and `-` do not count. */
function normalise(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** Levenshtein distance: the fewest single-character inserts, deletes or substitutions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate `name` most likely meant (`session_id` -> `sessionId`, `maxTurn` ->
 * `maxTurns`, `user` -> `userId`), or `undefined` when none is close: at most two edits, or a
 * third of a longer name.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = normalise(name);
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, normalise(candidate));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
