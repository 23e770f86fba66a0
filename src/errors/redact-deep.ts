/** A function that removes secrets from a piece of text. */
export type Redact = (text: string) => string;

/** What a removed secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Header names whose values are credentials, whatever the text around them. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key']);

/** How deep nested error fields are followed (causes, bodies, headers). */
const MAX_DEPTH = 8;

/** Secrets shorter than this are ignored: they would mangle every message and hide nothing. */
const MIN_SECRET_LENGTH = 4;

/** Replaces every occurrence of each secret with {@link REDACTED}. */
export function redactSecrets(secrets: Iterable<string | null | undefined>): Redact {
  const values = [...new Set(secrets)].filter(
    (s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH,
  );
  if (values.length === 0) return (text) => text;
  // Longest first, so a secret that contains another is replaced whole.
  values.sort((a, b) => b.length - a.length);
  return (text) => values.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}

/**
 * A copy of `value` (typically an error) with `redact` applied to every string in it: the
 * message, the stack, the cause chain and nested fields (an SDK error's body, headers, ...).
 * Values of credential headers (`Authorization`, `api-key`, ...) are replaced outright. Errors
 * and plain objects are copied with their prototype, so `instanceof` and typed facts
 * (`status`, `requestId`, `retryable`) survive; the original is left untouched. Other class
 * instances (a Date, a Map) are kept as they are.
 */
export function redactDeep<T>(value: T, redact: Redact): T {
  return redactValue(value, redact, new Map(), 0) as T;
}

function redactValue(value: unknown, redact: Redact, seen: Map<object, unknown>, depth: number) {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (value instanceof Headers) {
    const copy = new Headers();
    value.forEach((v, name) => copy.set(name, redactField(name, v, redact, seen, depth) as string));
    seen.set(value, copy);
    return copy;
  }
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(redactValue(item, redact, seen, depth + 1));
    return copy;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (!(value instanceof Error) && proto !== Object.prototype && proto !== null) {
    return value; // a Date, Map, class instance...: internal slots do not copy, leave it
  }
  const copy = Object.create(proto as object | null) as Record<PropertyKey, unknown>;
  seen.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor || !('value' in descriptor)) continue; // accessors: skipped, not evaluated
    const field = typeof key === 'string' ? key : '';
    const redacted = redactField(field, descriptor.value, redact, seen, depth);
    Object.defineProperty(copy, key, { ...descriptor, value: redacted });
  }
  return copy;
}

function redactField(
  name: string,
  value: unknown,
  redact: Redact,
  seen: Map<object, unknown>,
  depth: number,
): unknown {
  if (SECRET_HEADERS.has(name.toLowerCase()) && typeof value === 'string') return REDACTED;
  return redactValue(value, redact, seen, depth + 1);
}
