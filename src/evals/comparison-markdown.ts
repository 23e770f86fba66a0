import type { EvalComparison, MeasureDelta, RowComparison } from './compare-evals.js';

const num = (n: number | undefined): string => (n === undefined ? 'unknown' : String(n));

const signed = (n: number | undefined): string =>
  n === undefined ? '' : n > 0 ? `+${n}` : String(n);

const measureRow = (what: string, m: MeasureDelta): string =>
  `| ${what} | ${num(m.baseline)} | ${num(m.candidate)} | ${signed(m.delta)} |`;

const sideName = (s: EvalComparison['baseline']): string =>
  s.label === undefined ? s.evalId : `${s.label} (${s.evalId})`;

/** A row's scores that changed, as `exact 1 -> 0 ("the output ... is not ...")`. */
function scoreChanges(row: RowComparison): string {
  const parts = Object.entries(row.scores)
    .filter(([, s]) => s.delta !== 0)
    .map(([name, s]) => {
      const why = s.reason === undefined ? '' : ` (${s.reason})`;
      return `${name} ${num(s.baseline)} -> ${num(s.candidate)}${why}`;
    });
  return parts.length ? `: ${parts.join('; ')}` : '';
}

/**
 * A comparison as Markdown, for a CI job's summary or a pull request: the verdict and its
 * reasons, the measures side by side, then the regressed and improved rows (with the scores
 * that changed), the rows in one report only and those whose definition changed.
 */
export function comparisonMarkdown(comparison: EvalComparison): string {
  const c = comparison;
  const rowsOf = (change: RowComparison['change']): RowComparison[] =>
    c.rows.filter((r) => r.change === change);
  const passing = (side: 'baseline' | 'candidate'): string => {
    const present = c.rows.filter((r) => r[side] !== undefined);
    return `${present.filter((r) => r[side]!.pass).length} of ${present.length}`;
  };
  const lines = [
    `## Eval comparison: ${sideName(c.candidate)} against ${sideName(c.baseline)}`,
    '',
    c.passed ? '**Passed**: every threshold held.' : '**Failed**:',
    ...c.reasons.map((r) => `- ${r}`),
    '',
    '| | baseline | candidate | change |',
    '|---|---|---|---|',
    `| rows passing | ${passing('baseline')} | ${passing('candidate')} | |`,
    ...Object.entries(c.scores).map(
      ([name, s]) =>
        `| score: ${name}${s.comparable ? '' : ' (other version)'} | ${s.baseline} | ${s.candidate} | ${signed(s.delta)} |`,
    ),
    measureRow('cost (USD)', c.cost),
    measureRow('median latency (ms)', c.latency),
  ];
  const section = (title: string, items: string[]): void => {
    if (items.length === 0) return;
    lines.push('', `### ${title} (${items.length})`, '', ...items.map((i) => `- ${i}`));
  };
  section(
    'Regressed rows',
    rowsOf('regressed').map((r) => `${r.rowId}${scoreChanges(r)}`),
  );
  section(
    'Improved rows',
    rowsOf('improved').map((r) => `${r.rowId}${scoreChanges(r)}`),
  );
  section('Rows only in the baseline', c.onlyBaseline);
  section('Rows only in the candidate', c.onlyCandidate);
  section(
    'Rows whose agent definition changed differently',
    c.rows
      .filter((r) => r.definitionChanges)
      .map(
        (r) =>
          `${r.rowId}: baseline [${r.definitionChanges!.baseline.join(', ')}], candidate [${r.definitionChanges!.candidate.join(', ')}]`,
      ),
  );
  section('Warnings', c.warnings);
  return `${lines.join('\n')}\n`;
}
