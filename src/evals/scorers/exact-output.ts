import type { Scorer } from '../scorer.js';
import { quoted } from './in-order-match.js';

/** Options of `exactOutput`. */
export interface ExactOutputOptions {
  /** The scorer's name in reports. @default 'exact' */
  name?: string | undefined;
}

/**
 * Passes when the output is exactly the expected one: the row's `expected.output`, else the
 * recorded output.
 */
export function exactOutput(options: ExactOutputOptions = {}): Scorer {
  return {
    name: options.name ?? 'exact',
    score: ({ row, outcome }) => {
      const expected = row.expected?.output ?? row.recorded.output;
      if (outcome.output === expected) return { score: 1, pass: true };
      return {
        score: 0,
        pass: false,
        reason: `the output ${quoted(outcome.output)} is not ${quoted(expected)}`,
      };
    },
  };
}
