/**
 * An object stored as its difference from a base that the reader can build again: the fields
 * equal to the base's are left out and the base's fields the object lacks are listed, so
 * `restoreFields(omitFields(value, base), base)` is `value` (key order aside) whatever the base
 * holds. A base that guesses wrong costs bytes, never data.
 */

import { sameJson } from '../../validation/same-json.js';
import { isObject } from '../../validation/option-checks.js';

type Json = Record<string, unknown>;

/** The key of a stored object listing the base's fields that the original did not have. */
const ABSENT = '-';
/** The key under which an object that has the `ABSENT` key itself is stored whole. */
const WHOLE = '=';

/** The keys of an object that JSON keeps (those whose value is not `undefined`). */
const keysOf = (o: Json): string[] => Object.keys(o).filter((k) => o[k] !== undefined);

/** `value` without the fields equal to `base`'s, with the base's fields it lacks listed. */
export function omitFields(value: Json, base: Json): Json {
  if (Object.hasOwn(value, ABSENT)) return { [ABSENT]: null, [WHOLE]: value };
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined && !(Object.hasOwn(base, key) && sameJson(v, base[key]))) out[key] = v;
  }
  const absent = keysOf(base).filter((key) => value[key] === undefined);
  if (absent.length) out[ABSENT] = absent;
  return out;
}

/**
 * The object `omitFields(value, base)` was made from. The fields put back come after the
 * stored ones, so the same value omits to the same bytes again.
 */
export function restoreFields(stored: Json, base: Json): Json {
  const marker = stored[ABSENT];
  if (marker === null && isObject(stored[WHOLE])) return stored[WHOLE];
  const { [ABSENT]: _absent, ...out } = stored;
  const absent = new Set(Array.isArray(marker) ? marker : []);
  for (const [key, v] of Object.entries(base)) {
    if (v !== undefined && !Object.hasOwn(out, key) && !absent.has(key)) {
      out[key] = structuredClone(v);
    }
  }
  return out;
}
