/**
 * Amounts of USD as the runtime computes and adds them up: to twelve significant digits, so
 * that a cost prints as its price list gives it (`0.0000558`, not `0.000055799999999999994`)
 * and totals stay as exact as a budget needs, at any amount (a relative error below 1e-12).
 */
const SIGNIFICANT_DIGITS = 12;

/** `amount` to twelve significant digits. */
export function roundUsd(amount: number): number {
  return amount === 0 || !Number.isFinite(amount)
    ? amount
    : Number(amount.toPrecision(SIGNIFICANT_DIGITS));
}

/** The sum of USD amounts, rounded. */
export function addUsd(...amounts: number[]): number {
  let sum = 0;
  for (const amount of amounts) sum += amount;
  return roundUsd(sum);
}

/** `a - b` in USD, rounded. */
export function subtractUsd(a: number, b: number): number {
  return roundUsd(a - b);
}
