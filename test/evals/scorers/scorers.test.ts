import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { budget } from '../../../src/evals/scorers/budget.js';
import { scorer } from '../../../src/evals/scorers/custom-scorer.js';
import { exactOutput } from '../../../src/evals/scorers/exact-output.js';
import { outputMatches } from '../../../src/evals/scorers/output-matches.js';
import { outputSchema } from '../../../src/evals/scorers/output-schema.js';
import { toolCallsMatch } from '../../../src/evals/scorers/tool-calls-match.js';
import { trajectoryMatch } from '../../../src/evals/scorers/trajectory-match.js';
import { evalRow, outcome, scoreInput } from '../../helpers/eval-row-fixtures.js';

const pay = (amountUsd: number, payee = 'ACME') => ({
  name: 'pay_bill',
  arguments: JSON.stringify({ payee, amountUsd }),
});

describe('exactOutput', () => {
  const s = exactOutput();
  it('compares with expected.output, else the recorded output', async () => {
    const row = evalRow({ recorded: { output: 'Paid $120.' } });
    expect(await s.score(scoreInput(row, outcome({ output: 'Paid $120.' })))).toEqual({
      score: 1,
      pass: true,
    });
    expect(await s.score(scoreInput(row, outcome({ output: 'Paid $12.' })))).toEqual({
      score: 0,
      pass: false,
      reason: 'the output "Paid $12." is not "Paid $120."',
    });
    const expecting = evalRow({ recorded: { output: 'x' }, expected: { output: 'Paid $12.' } });
    expect((await s.score(scoreInput(expecting, outcome({ output: 'Paid $12.' })))).pass).toBe(
      true,
    );
    expect(s.name).toBe('exact');
    expect(exactOutput({ name: 'same' }).name).toBe('same');
  });
});

describe('outputMatches', () => {
  it('a given pattern, else the row`s expected.outputPattern; none, or a bad one, fails saying so', async () => {
    const paid = outcome({ output: 'Paid $120.00 to ACME' });
    expect((await outputMatches(/Paid \$\d+/g).score(scoreInput(evalRow(), paid))).pass).toBe(true);
    const row = evalRow({ expected: { outputPattern: '^I did not pay' } });
    expect(await outputMatches().score(scoreInput(row, paid))).toEqual({
      score: 0,
      pass: false,
      reason: 'the output "Paid $120.00 to ACME" does not match /^I did not pay/',
    });
    expect((await outputMatches().score(scoreInput(evalRow(), paid))).reason).toMatch(/no pattern/);
    const bad = evalRow({ expected: { outputPattern: '(' } });
    expect((await outputMatches().score(scoreInput(bad, paid))).reason).toMatch(
      /expected.outputPattern is invalid/,
    );
    expect(() => outputMatches('(')).toThrow(TypeError);
  });
});

describe('outputSchema', () => {
  const json = {
    type: 'object',
    properties: { paid: { type: 'boolean' }, amountUsd: { type: 'number' } },
    required: ['paid', 'amountUsd'],
  };
  it('a JSON Schema or a zod schema, over the structured output or the text parsed as JSON', async () => {
    for (const schema of [json, z.object({ paid: z.boolean(), amountUsd: z.number() })]) {
      const s = outputSchema(schema);
      const good = outcome({ output: '{"paid":true,"amountUsd":120}' });
      expect(await s.score(scoreInput(evalRow(), good))).toEqual({ score: 1, pass: true });
      const structured = outcome({ output: 'Done', structured: { paid: false, amountUsd: 3 } });
      expect((await s.score(scoreInput(evalRow(), structured))).pass).toBe(true);
      const wrong = outcome({ output: '{"paid":"yes","amountUsd":120}' });
      const scored = await s.score(scoreInput(evalRow(), wrong));
      expect(scored.pass).toBe(false);
      expect(scored.reason).toMatch(/^paid: /);
      const prose = outcome({ output: 'I paid it' });
      expect((await s.score(scoreInput(evalRow(), prose))).reason).toMatch(/not JSON/);
    }
    expect(() => outputSchema('nope' as never)).toThrow(TypeError);
  });
});

describe('toolCallsMatch', () => {
  it('names and arguments in order: the share matched, what is missing and what was not expected', async () => {
    const row = evalRow({ recorded: { toolCalls: [pay(120), pay(30, 'Water')] } });
    const same = outcome({
      toolCalls: [
        { name: 'pay_bill', arguments: '{ "amountUsd": 120, "payee": "ACME" }' },
        pay(30, 'Water'),
      ],
    });
    expect(await toolCallsMatch().score(scoreInput(row, same))).toEqual({ score: 1, pass: true });
    expect((await toolCallsMatch({ arguments: 'exact' }).score(scoreInput(row, same))).pass).toBe(
      false,
    );
    const other = outcome({ toolCalls: [pay(120), pay(300, 'Water')] });
    expect(await toolCallsMatch().score(scoreInput(row, other))).toEqual({
      score: 0.5,
      pass: false,
      reason:
        '1 of 2 calls match in order: missing pay_bill {"payee":"Water","amountUsd":30}; not expected pay_bill {"payee":"Water","amountUsd":300}',
    });
    expect((await toolCallsMatch({ arguments: 'ignore' }).score(scoreInput(row, other))).pass).toBe(
      true,
    );
    const none = outcome();
    expect(await toolCallsMatch().score(scoreInput(row, none))).toMatchObject({
      score: 0,
      pass: false,
    });
    // expected calls win over the recorded ones; one without arguments matches any
    const expecting = evalRow({
      recorded: { toolCalls: [] },
      expected: { toolCalls: [{ name: 'pay_bill' }] },
    });
    expect(
      (await toolCallsMatch().score(scoreInput(expecting, outcome({ toolCalls: [pay(9)] })))).pass,
    ).toBe(true);
    expect(() => toolCallsMatch({ arguments: 'loose' as never })).toThrow(/arguments/);
  });
});

describe('trajectoryMatch', () => {
  const recorded = [
    'bills: call pay_bill',
    'bills: pay_bill awaits approval',
    'bills: approve pay_bill',
    'bills: pay_bill returns',
    'bills: answers',
  ];
  const row = evalRow({ recorded: { trajectory: recorded } });
  it('exact: the same transitions in order; a failure names the first one not taken', async () => {
    expect(
      await trajectoryMatch().score(scoreInput(row, outcome({ trajectory: recorded }))),
    ).toEqual({ score: 1, pass: true });
    const noApproval = [
      'bills: call pay_bill',
      'bills: pay_bill needs no approval',
      'bills: pay_bill returns',
      'bills: answers',
    ];
    expect(
      await trajectoryMatch().score(scoreInput(row, outcome({ trajectory: noApproval }))),
    ).toEqual({
      score: 3 / 5,
      pass: false,
      reason:
        '3 of 5 transitions match: "bills: pay_bill awaits approval" not taken; "bills: pay_bill needs no approval" not expected',
    });
  });
  it('subsequence: the expected transitions in order, others between', async () => {
    const s = trajectoryMatch({ mode: 'subsequence' });
    const expecting = evalRow({
      recorded: { trajectory: recorded },
      expected: { trajectory: ['bills: approve pay_bill', 'bills: answers'] },
    });
    expect((await s.score(scoreInput(expecting, outcome({ trajectory: recorded })))).pass).toBe(
      true,
    );
    const rejected = ['bills: call pay_bill', 'bills: reject pay_bill', 'bills: answers'];
    expect(await s.score(scoreInput(expecting, outcome({ trajectory: rejected })))).toEqual({
      score: 0.5,
      pass: false,
      reason: '1 of 2 transitions match: "bills: approve pay_bill" not taken',
    });
  });
});

describe('budget', () => {
  const row = evalRow({
    recorded: { turns: 2, usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.01 } },
  });
  it('absolute limits and limits relative to the recorded run; the score is the share kept', async () => {
    const within = outcome({
      turns: 2,
      usage: { inputTokens: 110, outputTokens: 20, costUsd: 0.011 },
    });
    expect(
      await budget({ maxTurns: 3, maxTokens: 200, relative: 1.2 }).score(scoreInput(row, within)),
    ).toEqual({ score: 1, pass: true });
    const over = outcome({
      turns: 4,
      usage: { inputTokens: 300, outputTokens: 20, costUsd: 0.03 },
    });
    const scored = await budget({ maxTurns: 3, relative: 1.5 }).score(scoreInput(row, over));
    expect(scored).toEqual({
      score: 0,
      pass: false,
      reason:
        'turns: 4 > 3; turns (1.5x the recorded): 4 > 3; tokens (1.5x the recorded): 320 > 180; cost (1.5x the recorded): 0.03 > 0.015',
    });
    const unpriced = outcome({ usage: { inputTokens: 1, outputTokens: 1 } });
    expect(await budget({ maxCostUsd: 1 }).score(scoreInput(row, unpriced))).toEqual({
      score: 0,
      pass: false,
      reason: 'cost (USD): unknown',
    });
    expect(() => budget({})).toThrow(/at least one/);
    expect(() => budget({ maxTurns: -1 })).toThrow(/maxTurns/);
  });
});

describe('scorer (custom)', () => {
  it('a function answering a boolean, a number (passing from passAt) or a whole score', async () => {
    const polite = scorer('polite', ({ outcome: o }) => !/stupid/i.test(o.output ?? ''), {
      version: '2',
    });
    expect(polite).toMatchObject({ name: 'polite', version: '2' });
    expect(await polite.score(scoreInput(evalRow(), outcome({ output: 'Stupid bill' })))).toEqual({
      score: 0,
      pass: false,
    });
    const share = scorer('share', () => 0.7, { passAt: 0.6 });
    expect(await share.score(scoreInput(evalRow(), outcome()))).toEqual({ score: 0.7, pass: true });
    const whole = scorer('whole', () => ({ score: 0.2, pass: false, reason: 'too short' }));
    expect((await whole.score(scoreInput(evalRow(), outcome()))).reason).toBe('too short');
    expect(() => scorer('', () => true)).toThrow(TypeError);
    expect(() => scorer('x', () => true, { passAt: 2 })).toThrow(/passAt/);
  });
});
