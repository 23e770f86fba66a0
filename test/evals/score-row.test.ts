import { describe, expect, it } from 'vitest';
import { checkScorers, scoreRow } from '../../src/evals/score-row.js';
import { scorer } from '../../src/evals/scorers/custom-scorer.js';
import { exactOutput } from '../../src/evals/scorers/exact-output.js';
import type { Scorer } from '../../src/evals/scorer.js';
import { evalRow, outcome, scoreInput } from '../helpers/eval-row-fixtures.js';

describe('scoreRow', () => {
  it('scores with every scorer, versions kept; a throwing or wrong scorer is a failed score saying so', async () => {
    const row = evalRow({ recorded: { output: 'ok' } });
    const scored = await scoreRow(
      [
        exactOutput(),
        scorer('versioned', () => true, { version: 'v3' }),
        scorer('throws', () => {
          throw new Error('boom');
        }),
        scorer('out of range', () => 1.5),
      ],
      scoreInput(row, outcome({ output: 'ok' })),
    );
    expect(scored).toEqual({
      pass: false,
      scores: {
        exact: { score: 1, pass: true },
        versioned: { score: 1, pass: true, version: 'v3' },
        throws: { score: 0, pass: false, reason: 'the scorer failed: boom' },
        'out of range': {
          score: 0,
          pass: false,
          reason: "the scorer's answer is not a score: its score 1.5 is not a number in [0, 1]",
        },
      },
    });
    const all = await scoreRow([exactOutput()], scoreInput(row, outcome({ output: 'ok' })));
    expect(all.pass).toBe(true);
  });

  it('the eval`s stop is not a score: it is rethrown', async () => {
    const stop = new AbortController();
    const slow: Scorer = {
      name: 'slow',
      score: () => {
        stop.abort(new Error('stopped'));
        throw new Error('aborted');
      },
    };
    const input = { ...scoreInput(evalRow(), outcome()), signal: stop.signal };
    await expect(scoreRow([slow], input)).rejects.toThrow('stopped');
  });

  it('checkScorers: an array of scorers with unique names', () => {
    expect(() => checkScorers('runEval()', [exactOutput(), exactOutput()])).toThrow(
      'runEval(): two scorers are named "exact": pass a name option to one of them',
    );
    expect(() => checkScorers('runEval()', [{ name: 'x' }])).toThrow(/no score\(\) function/);
    expect(() => checkScorers('runEval()', 'exact')).toThrow(/must be an array/);
    expect(() =>
      checkScorers('runEval()', [exactOutput(), exactOutput({ name: 'b' })]),
    ).not.toThrow();
  });
});
