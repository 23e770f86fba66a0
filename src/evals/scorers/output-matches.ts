import type { Scorer } from '../scorer.js';
import { quoted } from './in-order-match.js';

/** Options of `outputMatches`. */
export interface OutputMatchesOptions {
  /** The scorer's name in reports. @default 'regex' */
  name?: string | undefined;
}

/**
 * Passes when the output matches `pattern` (a RegExp, or a regular expression's source), else
 * the row's `expected.outputPattern`. A row with neither, or a pattern that is not a regular
 * expression, fails saying so.
 * @throws TypeError for a `pattern` that is neither a RegExp nor a valid source.
 */
export function outputMatches(
  pattern?: RegExp | string,
  options: OutputMatchesOptions = {},
): Scorer {
  const given = pattern === undefined ? undefined : toRegExp(pattern);
  return {
    name: options.name ?? 'regex',
    score: ({ row, outcome }) => {
      let re = given;
      if (!re) {
        const source = row.expected?.outputPattern;
        if (source === undefined) {
          return {
            score: 0,
            pass: false,
            reason: 'no pattern: the row has no expected.outputPattern and none was given',
          };
        }
        try {
          re = new RegExp(source);
        } catch (error) {
          const why = (error as Error).message;
          return { score: 0, pass: false, reason: `expected.outputPattern is invalid: ${why}` };
        }
      }
      if (outcome.output !== undefined && re.test(outcome.output)) return { score: 1, pass: true };
      return {
        score: 0,
        pass: false,
        reason: `the output ${quoted(outcome.output)} does not match ${String(re)}`,
      };
    },
  };
}

function toRegExp(pattern: RegExp | string): RegExp {
  if (pattern instanceof RegExp) {
    // A global or sticky expression keeps its lastIndex between tests: a fresh copy does not.
    return new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  }
  if (typeof pattern !== 'string') {
    throw new TypeError('outputMatches(): pattern must be a RegExp or a string');
  }
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new TypeError(`outputMatches(): pattern is invalid: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
