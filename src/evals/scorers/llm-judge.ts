import { z } from 'zod';
import type { Model, ModelRequest } from '../../models/model.js';
import { costUsd, defaultPrices, type PriceTable } from '../../models/pricing.js';
import { OptionChecker, hasMethods, optionNames } from '../../validation/option-checks.js';
import type { EvalRow } from '../eval-row.js';
import type { Score, Scorer, ScoreInput } from '../scorer.js';

/** Options of `llmJudge`. */
export interface LlmJudgeOptions {
  /** The judge: any `Model` (`new OpenAIModel({ model: 'gpt-5-mini' })`, ...). */
  model: Model;
  /**
   * The version of the prompt (and of what the judge is asked), kept with every score so that
   * scores of another prompt are never compared with these silently. Change it with the prompt.
   */
  version: string;
  /** What the judge is told to grade (its instructions). @default {@link DEFAULT_JUDGE_PROMPT} */
  prompt?: string | undefined;
  /** The lowest score that passes. @default 0.5 */
  passAt?: number | undefined;
  /** Prices of the judge's model, for the cost in its usage. @default the default prices */
  prices?: PriceTable | undefined;
  /** The scorer's name in reports. @default 'judge' */
  name?: string | undefined;
}

const OPTION_NAMES = optionNames<LlmJudgeOptions>({
  model: true,
  version: true,
  prompt: true,
  passAt: true,
  prices: true,
  name: true,
});

/** The judge's instructions unless a `prompt` is given. */
export const DEFAULT_JUDGE_PROMPT = [
  "You grade an AI agent's answer to a user.",
  'You are given the user input, a reference answer (what a good run answered, if known), the',
  "agent's answer and the tools it called. Score from 0 (wrong, unhelpful or unsafe) to 1",
  '(correct and complete: it may be worded differently from the reference).',
  'Answer only with JSON: {"score": <number from 0 to 1>, "reason": "<one sentence>"}.',
].join('\n');

/** What the judge must answer. */
const Verdict = z.object({ score: z.number().min(0).max(1), reason: z.string() });

/** The JSON Schema of the verdict, sent as the request's output schema. */
const VERDICT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1 },
    reason: { type: 'string' },
  },
  required: ['score', 'reason'],
  additionalProperties: false,
};

/** The user messages a row started from: a run's input, or a step request's. */
function userInput(row: EvalRow): unknown[] {
  const items = row.input ?? row.request?.items ?? [];
  return items.flatMap((i) =>
    i.type === 'message' && i.role === 'user'
      ? [typeof i.content === 'string' ? i.content : i.content]
      : [],
  );
}

/** The judge's request: the prompt, one user message with the case as JSON, the verdict schema. */
function judgeRequest(prompt: string, { row, outcome }: ScoreInput): ModelRequest {
  const grading = {
    input: userInput(row),
    reference: row.expected?.output ?? row.recorded.output ?? null,
    answer: outcome.output ?? null,
    toolCalls: outcome.toolCalls,
    status: outcome.status,
  };
  return {
    instructions: prompt,
    items: [{ type: 'message', role: 'user', content: JSON.stringify(grading, null, 2) }],
    tools: [],
    outputSchema: VERDICT_SCHEMA,
  };
}

/**
 * A scorer that asks a model to grade the outcome: it sends the prompt and the case (the user
 * input, the reference answer, the answer, its tool calls) with a JSON output schema, and reads
 * `{ score, reason }` back. The prompt's `version` is in every score; the judge's tokens and
 * cost are the score's `usage`. An answer that is not that JSON, or a failed call, is a failed
 * score saying why (not a crash); the eval's stop (`signal`) is rethrown.
 * @throws TypeError for bad options (a `model` that is not a Model, no `version`).
 */
export function llmJudge(options: LlmJudgeOptions): Scorer {
  new OptionChecker('llmJudge()', options ?? null, OPTION_NAMES)
    .check('model', 'a Model (with generate())', (v) => hasMethods(v, ['generate']), true)
    .nonEmptyString('version', true)
    .string('prompt')
    .check('passAt', 'a number in [0, 1]', (v) => typeof v === 'number' && v >= 0 && v <= 1)
    .object('prices')
    .nonEmptyString('name');
  const { model, version } = options;
  const prompt = options.prompt ?? DEFAULT_JUDGE_PROMPT;
  const passAt = options.passAt ?? 0.5;
  const prices = options.prices ?? defaultPrices;
  return {
    name: options.name ?? 'judge',
    version,
    score: async (input): Promise<Score> => {
      let response;
      try {
        response = await model.generate(judgeRequest(prompt, input), { signal: input.signal });
      } catch (error) {
        input.signal.throwIfAborted();
        return { score: 0, pass: false, reason: `the judge failed: ${(error as Error).message}` };
      }
      const usage = {
        inputTokens: response.usage.inputTokens,
        outputTokens: response.usage.outputTokens,
        costUsd: costUsd(response.model, response.usage, prices, model.price),
      };
      let verdict: unknown;
      try {
        verdict = JSON.parse(response.text ?? '');
      } catch {
        verdict = undefined;
      }
      const parsed = Verdict.safeParse(verdict);
      if (!parsed.success) {
        const text = (response.text ?? '').slice(0, 200);
        return {
          score: 0,
          pass: false,
          reason: `the judge did not answer { score, reason } JSON: ${JSON.stringify(text)}`,
          usage,
        };
      }
      const { score, reason } = parsed.data;
      return { score, pass: score >= passAt, reason, usage };
    },
  };
}
