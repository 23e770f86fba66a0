import { AssertionError, deepStrictEqual } from 'node:assert';

/**
 * The suite's assertions, over `node:assert` (no test runner's `expect`): `equal` and
 * `matches` compare plain data as a store returns it, where a property set to `undefined` is
 * the same as one left out.
 */

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/** `value` with every `undefined` property of its plain objects left out, recursively. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined) out[key] = withoutUndefined(field);
  }
  return out;
}

/** Deep equality of plain data (an `undefined` property equals a missing one). */
export function equal(actual: unknown, expected: unknown, message?: string): void {
  deepStrictEqual(withoutUndefined(actual), withoutUndefined(expected), message);
}

/** Whether `actual` deeply equals `expected` (see `equal`). */
export function isEqual(actual: unknown, expected: unknown): boolean {
  try {
    equal(actual, expected);
    return true;
  } catch {
    return false;
  }
}

/**
 * `actual` holds every property of `expected`, recursively (objects may have more; arrays
 * match element by element and have the same length).
 */
export function matches(actual: unknown, expected: unknown, path = '(value)'): void {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      throw new AssertionError({ message: `${path} does not match`, actual, expected });
    }
    expected.forEach((item, i) => matches(actual[i], item, `${path}[${i}]`));
    return;
  }
  if (isPlainObject(expected)) {
    if (typeof actual !== 'object' || actual === null) {
      throw new AssertionError({ message: `${path} is not an object`, actual, expected });
    }
    for (const [key, field] of Object.entries(expected)) {
      matches((actual as Record<string, unknown>)[key], field, `${path}.${key}`);
    }
    return;
  }
  if (!isEqual(actual, expected)) {
    throw new AssertionError({ message: `${path} does not match`, actual, expected });
  }
}

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Waits for `promise` to reject with an instance of `expected` (a class) or an error holding
 * its properties (an object), and returns the error.
 */
export async function rejects(
  promise: Promise<unknown>,
  expected: ErrorClass | Record<string, unknown>,
): Promise<unknown> {
  const outcome = await promise.then(
    (value: unknown) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) {
    throw new AssertionError({
      message: 'expected a rejection, the promise resolved',
      actual: outcome.value,
      expected,
    });
  }
  const { error } = outcome;
  if (typeof expected === 'function') {
    if (!(error instanceof expected)) {
      throw new AssertionError({
        message: `expected a rejection with ${expected.name}, got ${String(error)}`,
        actual: error,
        expected,
      });
    }
  } else {
    matches(error, expected, '(error)');
  }
  return error;
}

/** Waits (real time, up to 10 s) until `done()` holds: a notification may cross processes. */
export async function eventually(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited >= 10_000) throw new AssertionError({ message: `never: ${what}` });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
