import { isObject } from '../validation/option-checks.js';
import type { EvalScore } from './eval-report.js';
import type { Score, Scorer, ScoreInput } from './scorer.js';

/** What the scorers gave one row: each score by scorer name, and whether all passed. */
export interface RowScores {
  scores: Record<string, EvalScore>;
  pass: boolean;
}

/**
 * Checks the scorers of an eval: each a `Scorer`, their names unique (a report keys scores by
 * name).
 * @throws TypeError naming the call and the first bad scorer.
 */
export function checkScorers(call: string, scorers: unknown): asserts scorers is Scorer[] {
  if (!Array.isArray(scorers)) {
    throw new TypeError(`${call}: option "scorers" must be an array of scorers`);
  }
  const names = new Set<string>();
  scorers.forEach((s: unknown, i) => {
    if (!isObject(s) || typeof s['name'] !== 'string' || s['name'] === '') {
      throw new TypeError(`${call}: scorers[${i}] must be a scorer with a non-empty name`);
    }
    if (typeof s['score'] !== 'function') {
      throw new TypeError(`${call}: scorer "${s['name']}" has no score() function`);
    }
    if (names.has(s['name'])) {
      throw new TypeError(
        `${call}: two scorers are named "${s['name']}": pass a name option to one of them`,
      );
    }
    names.add(s['name']);
  });
}

/** Why a scorer's answer is not a score, or undefined when it is one. */
function notAScore(score: unknown): string | undefined {
  if (!isObject(score)) return 'it gave no { score, pass }';
  const value = score['score'];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    return `its score ${String(value)} is not a number in [0, 1]`;
  }
  if (typeof score['pass'] !== 'boolean') return 'its pass is not a boolean';
  return undefined;
}

/**
 * Scores one row's outcome with every scorer, one after the other. A scorer that throws or
 * answers something that is not a score gives a failed score saying so (the row is still
 * scored by the others); a stop of the eval (`signal`) is rethrown. Each score carries its
 * scorer's version.
 */
export async function scoreRow(scorers: readonly Scorer[], input: ScoreInput): Promise<RowScores> {
  const scores: Record<string, EvalScore> = {};
  for (const scorer of scorers) {
    const version = scorer.version === undefined ? {} : { version: scorer.version };
    let score: Score;
    try {
      score = await scorer.score(input);
    } catch (error) {
      input.signal.throwIfAborted();
      const message = error instanceof Error ? error.message : String(error);
      scores[scorer.name] = {
        score: 0,
        pass: false,
        reason: `the scorer failed: ${message}`,
        ...version,
      };
      continue;
    }
    const wrong = notAScore(score);
    scores[scorer.name] = wrong
      ? {
          score: 0,
          pass: false,
          reason: `the scorer's answer is not a score: ${wrong}`,
          ...version,
        }
      : {
          score: score.score,
          pass: score.pass,
          ...(score.reason === undefined ? {} : { reason: score.reason }),
          ...version,
          ...(score.usage === undefined ? {} : { usage: score.usage }),
        };
  }
  return { scores, pass: Object.values(scores).every((s) => s.pass) };
}
