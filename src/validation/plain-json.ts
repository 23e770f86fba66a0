/**
 * True for values that survive `JSON.stringify` / `JSON.parse` unchanged: `null`, booleans,
 * strings, finite numbers, arrays of those and plain objects (an `undefined` property is
 * allowed: it means absent). Not a `Date`, `Map`, class instance, function, `NaN` or a cycle.
 * @example isPlainJson({ tenant: 'acme', tags: ['a'] }) // true
 */
export function isPlainJson(value: unknown, within: Set<object> = new Set()): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || within.has(value)) return false;
  within.add(value);
  const ok = Array.isArray(value)
    ? value.every((v) => isPlainJson(v, within))
    : isPlainObject(value) &&
      Object.values(value).every((v) => v === undefined || isPlainJson(v, within));
  within.delete(value);
  return ok;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A JSON copy of plain-JSON metadata (keys set to `undefined` are dropped). */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
