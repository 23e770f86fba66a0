import type { EvalOutcome } from '../eval-row.js';
import type { Scorer } from '../scorer.js';
import { OptionChecker, optionNames } from '../../validation/option-checks.js';

/** Options of `budget`: the limits a row's run (or step) must stay within. */
export interface BudgetOptions {
  maxTurns?: number | undefined;
  /** Input and output tokens together. */
  maxTokens?: number | undefined;
  maxCostUsd?: number | undefined;
  /**
   * At most this many times what the recorded run used (turns, tokens and, when both are known,
   * cost): `1.2` allows 20% more.
   */
  relative?: number | undefined;
  /** The scorer's name in reports. @default 'budget' */
  name?: string | undefined;
}

const OPTION_NAMES = optionNames<BudgetOptions>({
  maxTurns: true,
  maxTokens: true,
  maxCostUsd: true,
  relative: true,
  name: true,
});

const tokensOf = (o: EvalOutcome): number => o.usage.inputTokens + o.usage.outputTokens;

/** One limit checked: what it is and what was used. */
interface Check {
  what: string;
  used: number | undefined;
  limit: number;
}

/**
 * Checks turns, tokens and cost against limits: absolute ones, and `relative` to the recorded
 * run. The score is the share of limits kept; it passes when all are. A cost limit on an
 * outcome of unknown cost (a model with no price) is not kept, and says so.
 * @throws TypeError when no limit is given, or for a limit that is not a non-negative number.
 */
export function budget(options: BudgetOptions): Scorer {
  new OptionChecker('budget()', options, OPTION_NAMES)
    .nonNegativeNumber('maxTurns')
    .nonNegativeNumber('maxTokens')
    .nonNegativeNumber('maxCostUsd')
    .nonNegativeNumber('relative')
    .nonEmptyString('name');
  const { maxTurns, maxTokens, maxCostUsd, relative } = options;
  if ([maxTurns, maxTokens, maxCostUsd, relative].every((v) => v === undefined)) {
    throw new TypeError('budget(): give at least one of maxTurns, maxTokens, maxCostUsd, relative');
  }
  return {
    name: options.name ?? 'budget',
    score: ({ row, outcome }) => {
      const cost = outcome.usage.costUsd;
      const checks: Check[] = [];
      if (maxTurns !== undefined)
        checks.push({ what: 'turns', used: outcome.turns, limit: maxTurns });
      if (maxTokens !== undefined) {
        checks.push({ what: 'tokens', used: tokensOf(outcome), limit: maxTokens });
      }
      if (maxCostUsd !== undefined)
        checks.push({ what: 'cost (USD)', used: cost, limit: maxCostUsd });
      if (relative !== undefined) {
        const recorded = row.recorded;
        const times = `${relative}x the recorded`;
        checks.push({
          what: `turns (${times})`,
          used: outcome.turns,
          limit: relative * recorded.turns,
        });
        checks.push({
          what: `tokens (${times})`,
          used: tokensOf(outcome),
          limit: relative * tokensOf(recorded),
        });
        if (recorded.usage.costUsd !== undefined) {
          checks.push({
            what: `cost (${times})`,
            used: cost,
            limit: relative * recorded.usage.costUsd,
          });
        }
      }
      const over = checks.filter((c) => c.used === undefined || c.used > c.limit);
      const score = (checks.length - over.length) / checks.length;
      if (over.length === 0) return { score, pass: true };
      const reason = over
        .map((c) =>
          c.used === undefined ? `${c.what}: unknown` : `${c.what}: ${c.used} > ${c.limit}`,
        )
        .join('; ');
      return { score, pass: false, reason };
    },
  };
}
