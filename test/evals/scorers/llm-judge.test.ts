import { describe, expect, it } from 'vitest';
import { OpenAIModel } from '../../../src/index.js';
import { scoreRow } from '../../../src/evals/score-row.js';
import { DEFAULT_JUDGE_PROMPT, llmJudge } from '../../../src/evals/scorers/llm-judge.js';
import { chatCompletionsServerPerTest, completion } from '../../helpers/chat-completions-server.js';
import { evalRow, outcome, scoreInput } from '../../helpers/eval-row-fixtures.js';

const server = chatCompletionsServerPerTest();

/** A judge speaking Chat Completions through the official `openai` client to the local server. */
const judgeModel = () =>
  new OpenAIModel({
    model: 'gpt-4.1-mini',
    apiKey: 'test-key',
    baseURL: server.baseURL,
    maxRetries: 0,
  });

const row = evalRow({ recorded: { output: 'Paid $120.00 to ACME Power.' } });
const answer = outcome({
  output: 'I paid ACME Power $120.',
  toolCalls: [{ name: 'pay_bill', arguments: '{"payee":"ACME Power","amountUsd":120}' }],
});

describe('llmJudge through the openai client', () => {
  it('asks with the prompt and a JSON output schema; reads { score, reason }; the version and usage are in the score', async () => {
    server.enqueue({
      json: completion({
        content: '{"score":0.9,"reason":"Same payment, other words."}',
        usage: { prompt: 1000, completion: 100 },
        model: 'gpt-4.1-mini',
      }),
    });
    const judge = llmJudge({ model: judgeModel(), version: 'grading-v2', passAt: 0.8 });
    const scored = await scoreRow([judge], scoreInput(row, answer));
    expect(scored.scores['judge']).toEqual({
      score: 0.9,
      pass: true,
      reason: 'Same payment, other words.',
      version: 'grading-v2',
      // gpt-4.1-mini: $0.40 / $1.60 per million tokens
      usage: { inputTokens: 1000, outputTokens: 100, costUsd: 0.00056 },
    });
    const body = server.body();
    expect(body['model']).toBe('gpt-4.1-mini');
    expect(body['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: { required: ['score', 'reason'] } },
    });
    const messages = body['messages'] as { role: string; content: string }[];
    expect(messages[0]).toEqual({ role: 'system', content: DEFAULT_JUDGE_PROMPT });
    const grading = JSON.parse(messages[1]!.content) as Record<string, unknown>;
    expect(grading).toMatchObject({
      input: ['Pay ACME $120'],
      reference: 'Paid $120.00 to ACME Power.',
      answer: 'I paid ACME Power $120.',
      toolCalls: answer.toolCalls,
    });
  });

  it('a score under passAt fails; a custom prompt is sent as the instructions', async () => {
    server.enqueue({ json: completion({ content: '{"score":0.3,"reason":"Wrong payee."}' }) });
    const judge = llmJudge({
      model: judgeModel(),
      version: 'strict-1',
      prompt: 'Grade strictly.',
      name: 'strict',
    });
    const scored = await scoreRow([judge], scoreInput(row, answer));
    expect(scored.scores['strict']).toMatchObject({ score: 0.3, pass: false, version: 'strict-1' });
    expect((server.body()['messages'] as { content: string }[])[0]!.content).toBe(
      'Grade strictly.',
    );
  });

  it('an answer that is not { score, reason }, or a failed call, is a failed score with its reason, not a crash', async () => {
    server.enqueue(
      { json: completion({ content: 'Looks good to me!', usage: { prompt: 50, completion: 4 } }) },
      { json: completion({ content: '{"score":7,"reason":"great"}' }) },
      { status: 400, error: 'model not found' },
    );
    const judge = llmJudge({ model: judgeModel(), version: '1' });
    const prose = await scoreRow([judge], scoreInput(row, answer));
    expect(prose.scores['judge']).toMatchObject({
      score: 0,
      pass: false,
      reason: 'the judge did not answer { score, reason } JSON: "Looks good to me!"',
      version: '1',
      usage: { inputTokens: 50, outputTokens: 4 },
    });
    const outOfRange = await scoreRow([judge], scoreInput(row, answer));
    expect(outOfRange.scores['judge']!.reason).toMatch(/did not answer/);
    const failed = await scoreRow([judge], scoreInput(row, answer));
    expect(failed.scores['judge']).toMatchObject({ score: 0, pass: false, version: '1' });
    expect(failed.scores['judge']!.reason).toMatch(/^the judge failed: .*model not found/);
  });

  it('bad options are TypeErrors naming the option', () => {
    expect(() => llmJudge({ model: judgeModel() } as never)).toThrow(/"version"/);
    expect(() => llmJudge({ model: {} as never, version: '1' })).toThrow(/"model"/);
    expect(() => llmJudge({ model: judgeModel(), version: '1', passAt: 2 })).toThrow(/"passAt"/);
  });
});
