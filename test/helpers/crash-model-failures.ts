/**
 * The model failures of the crash test (shared by the worker, which fails those calls once,
 * and the test, which checks each failed once and was retried).
 */
import { existsSync, readFileSync } from 'node:fs';

/** Calls whose model call fails once (with a retryable 503) before it succeeds. */
export const failingCalls = (steps: number): number[] =>
  Array.from({ length: steps }, (_, n) => n).filter((n) => n % 9 === 4);

/** The calls whose model call failed so far in this folder, in order. */
export function readModelFailures(logFile: string): number[] {
  const file = `${logFile}.model-failures`;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}
