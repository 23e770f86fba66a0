/** Argument checks of a `MapSessionStore` (mistakes are `TypeError`s, as the contract asks). */

export function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${what} must be a positive integer, got ${value}`);
  }
  return value;
}

export function epochMs(value: number | undefined, what: string): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
    throw new TypeError(`${what} must be epoch milliseconds, got ${value}`);
  }
}
