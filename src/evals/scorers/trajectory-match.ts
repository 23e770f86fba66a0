import type { Scorer } from '../scorer.js';
import { OptionChecker, optionNames } from '../../validation/option-checks.js';
import { matchInOrder } from './in-order-match.js';

/** Options of `trajectoryMatch`. */
export interface TrajectoryMatchOptions {
  /**
   * `exact`: the same transitions in the same order (the score is the share matched in order, of
   * the longer trajectory); `subsequence`: the expected transitions are taken in order, others
   * may come between (the score is the share of the expected ones taken).
   * @default 'exact'
   */
  mode?: 'exact' | 'subsequence' | undefined;
  /** The scorer's name in reports. @default 'trajectory' */
  name?: string | undefined;
}

const OPTION_NAMES = optionNames<TrajectoryMatchOptions>({ mode: true, name: true });

/**
 * Scores the trajectory over the run chart (`trajectoryOf`: `billing: approve refund`, ...)
 * against the row's `expected.trajectory`, else the recorded one. A failure names the first
 * expected transition not taken, and the first one not expected.
 * @throws TypeError for bad options.
 */
export function trajectoryMatch(options: TrajectoryMatchOptions = {}): Scorer {
  new OptionChecker('trajectoryMatch()', options, OPTION_NAMES)
    .check('mode', '"exact" or "subsequence"', (v) => v === 'exact' || v === 'subsequence')
    .nonEmptyString('name');
  const mode = options.mode ?? 'exact';
  return {
    name: options.name ?? 'trajectory',
    score: ({ row, outcome }) => {
      const expected = row.expected?.trajectory ?? row.recorded.trajectory;
      const actual = outcome.trajectory;
      const match = matchInOrder(expected, actual, (e, a) => e === a);
      const of = mode === 'exact' ? Math.max(expected.length, actual.length) : expected.length;
      if (match.matched === of) return { score: 1, pass: true };
      const missing = match.missing[0];
      const extra = mode === 'exact' ? match.extra[0] : undefined;
      const parts = [
        missing === undefined ? '' : `"${expected[missing]!}" not taken`,
        extra === undefined ? '' : `"${actual[extra]!}" not expected`,
      ];
      return {
        score: match.matched / of,
        pass: false,
        reason: `${match.matched} of ${of} transitions match: ${parts.filter(Boolean).join('; ')}`,
      };
    },
  };
}
