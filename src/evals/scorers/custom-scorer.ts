import type { Score, Scorer, ScoreInput } from '../scorer.js';
import { OptionChecker, optionNames } from '../../validation/option-checks.js';

/** Options of `scorer`. */
export interface CustomScorerOptions {
  /** Kept with every score: change it when the function changes what it checks. */
  version?: string | undefined;
  /** The lowest number that passes, for a function that answers a number. @default 1 */
  passAt?: number | undefined;
}

const OPTION_NAMES = optionNames<CustomScorerOptions>({ version: true, passAt: true });

/** What a custom scorer function may answer: a whole score, a number in [0, 1], or a verdict. */
export type CustomScore = Score | number | boolean;

/**
 * A scorer from a function of the row and its outcome: it answers a `Score`, a number in [0, 1]
 * (passing from `passAt`) or a boolean (1 or 0).
 * @throws TypeError for an empty name, a `fn` that is not a function, bad options.
 * @example
 * const polite = scorer('polite', ({ outcome }) => !/stupid/i.test(outcome.output ?? ''));
 */
export function scorer(
  name: string,
  fn: (input: ScoreInput) => CustomScore | Promise<CustomScore>,
  options: CustomScorerOptions = {},
): Scorer {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError('scorer(): name must be a non-empty string');
  }
  if (typeof fn !== 'function') throw new TypeError(`scorer("${name}"): fn must be a function`);
  new OptionChecker(`scorer("${name}")`, options, OPTION_NAMES)
    .nonEmptyString('version')
    .check('passAt', 'a number in [0, 1]', (v) => typeof v === 'number' && v >= 0 && v <= 1);
  const passAt = options.passAt ?? 1;
  return {
    name,
    version: options.version,
    score: async (input) => {
      const answer = await fn(input);
      if (typeof answer === 'boolean') return { score: answer ? 1 : 0, pass: answer };
      if (typeof answer === 'number') return { score: answer, pass: answer >= passAt };
      return answer;
    },
  };
}
