/**
 * Whether two plain-JSON values are equal as JSON: key order and `undefined` fields aside, so
 * `sameJson(a, b)` holds when `JSON.stringify` of each would give the same value back. Shared
 * subtrees (`===`) are not walked, and the walk stops at the first difference: comparing two
 * snapshots that share most of their objects costs far less than stringifying either.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let fields = 0;
  for (const key in x) {
    const value = x[key];
    if (value === undefined) continue;
    if (!sameJson(value, y[key])) return false;
    fields++;
  }
  for (const key in y) if (y[key] !== undefined) fields--;
  return fields === 0;
}
