import { compareEvals } from '../../evals/compare-evals.js';
import { comparisonMarkdown } from '../../evals/comparison-markdown.js';
import type { EvalReport } from '../../evals/eval-report.js';
import { InvalidEvalReportError } from '../../errors/eval-errors.js';
import { CliFailure, CliUsageError } from '../shared/cli-errors.js';
import { json } from '../shared/cli-format.js';
import { numberFlag } from '../shared/eval-flags.js';
import { readGivenFile } from '../shared/given-file.js';
import { intFlag, stringFlag, type Command, type CommandContext } from '../shared/command.js';

const COMMAND = 'eval compare';
const FORMATS = ['markdown', 'json'] as const;

/** `--format`, else `json` with `--json`, else markdown. */
function formatOf(ctx: CommandContext): (typeof FORMATS)[number] {
  const given = stringFlag(ctx, 'format');
  if (given === undefined) return ctx.json ? 'json' : 'markdown';
  if (!(FORMATS as readonly string[]).includes(given)) {
    throw new CliUsageError(
      `--format must be markdown or json, got ${JSON.stringify(given)}`,
      COMMAND,
    );
  }
  return given as (typeof FORMATS)[number];
}

/** The JSON of the report file given as `<side>`; text that is not JSON names the file. */
async function readReport(
  ctx: CommandContext,
  side: 'baseline' | 'candidate',
): Promise<EvalReport> {
  const file = ctx.args[side]!;
  const text = await readGivenFile(ctx, file, `<${side}>`);
  try {
    return JSON.parse(text) as EvalReport;
  } catch (error) {
    throw new InvalidEvalReportError(side, `${file} is not JSON (${(error as Error).message})`);
  }
}

async function run(ctx: CommandContext): Promise<void> {
  const format = formatOf(ctx);
  const maxRegressedRows = intFlag(ctx, COMMAND, 'max-regressed', 0);
  const minScoreDelta = numberFlag(ctx, COMMAND, 'min-score-delta', -1);
  const maxCostIncrease = numberFlag(ctx, COMMAND, 'max-cost-increase', 0);
  const maxLatencyIncrease = numberFlag(ctx, COMMAND, 'max-latency-increase', 0);
  // Both files read before anything is compared (compareEvals checks their shape, naming the
  // side and the field): a bad one is exit 2.
  const baseline = await readReport(ctx, 'baseline');
  const candidate = await readReport(ctx, 'candidate');
  const comparison = compareEvals(baseline, candidate, {
    ...(maxRegressedRows === undefined ? {} : { maxRegressedRows }),
    ...(minScoreDelta === undefined ? {} : { minScoreDelta }),
    ...(maxCostIncrease === undefined ? {} : { maxCostIncrease }),
    ...(maxLatencyIncrease === undefined ? {} : { maxLatencyIncrease }),
  });
  ctx.io.out(format === 'json' ? json(comparison) : comparisonMarkdown(comparison));
  if (!comparison.passed) {
    throw new CliFailure(
      `the candidate ${ctx.args['candidate']} fails the thresholds against ${ctx.args['baseline']}: ${comparison.reasons.join('; ')}`,
    );
  }
}

export const evalCompare: Command = {
  name: 'eval compare',
  summary:
    'compare two eval reports row by row (regressed, improved, score, cost and latency deltas); exit 1 when a threshold fails',
  args: ['baseline', 'candidate'],
  options: {
    'max-regressed': {
      type: 'string',
      value: 'N',
      description: 'the most rows that may go from pass to fail (0: none)',
    },
    'min-score-delta': {
      type: 'string',
      value: 'x',
      description: 'the least change of the mean score (e.g. -0.05: at most 0.05 lower)',
    },
    'max-cost-increase': {
      type: 'string',
      value: 'x',
      description: 'the largest rise of the cost, as a share of the baseline (0.1: 10%)',
    },
    'max-latency-increase': {
      type: 'string',
      value: 'x',
      description: 'the largest rise of the median latency, as a share of the baseline',
    },
    format: {
      type: 'string',
      value: 'markdown|json',
      description: 'the comparison as markdown (default) or JSON (--json: json)',
    },
  },
  examples: [
    'agentstate eval compare baseline.json candidate.json --max-regressed 0',
    'agentstate eval compare baseline.json candidate.json --min-score-delta -0.02 --format json',
  ],
  details:
    'Rows are matched by id; a row whose agent definition changed differently in the two reports is flagged. Exit codes: 0 within the thresholds, 1 a threshold failed, 2 a bad flag or report file.',
  run,
};
