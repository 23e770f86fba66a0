import type { DatasetCoverage } from './coverage.js';

const place = (agentPath: readonly string[]): string =>
  agentPath.length > 1 ? `${agentPath.slice(0, -1).join(' > ')} > ` : '';

const percent = (part: number, whole: number): string =>
  whole === 0 ? '100%' : `${Math.floor((part / whole) * 100)}%`;

/**
 * A dataset's chart coverage as Markdown: the counts, then what is never exercised (the
 * transitions, the tools, the approval paths) and the rows the chart could not follow.
 */
export function coverageMarkdown(coverage: DatasetCoverage): string {
  const { transitions, tools, approvals } = coverage;
  const lines = [
    `## Chart coverage of ${coverage.agent} (${coverage.rows} rows)`,
    '',
    `- Transitions: ${transitions.covered} of ${transitions.reachable} (${percent(transitions.covered, transitions.reachable)})`,
    `- Tools called: ${tools.reachable - tools.neverCalled.length} of ${tools.reachable}`,
    `- Approval paths taken: ${approvals.reachable - approvals.neverTaken.length} of ${approvals.reachable}`,
  ];
  const section = (title: string, items: string[]): void => {
    if (items.length === 0) return;
    lines.push('', `### ${title}`, '', ...items.map((i) => `- ${i}`));
  };
  section(
    'Approval paths never taken',
    approvals.neverTaken.map(
      (a) => `${place(a.agentPath)}${a.agentPath.at(-1)!}: ${a.decision} ${a.tool}`,
    ),
  );
  section(
    'Tools never called',
    tools.neverCalled.map((t) => `${place(t.agentPath)}${t.agentPath.at(-1)!}: ${t.tool}`),
  );
  section(
    'Transitions never taken',
    transitions.uncovered.map((t) => `${place(t.agentPath)}${t.transition}`),
  );
  section(
    'Rows the chart could not follow',
    coverage.offChart.map((r) => `${r.rowId}: "${r.transition}" at ${r.at}`),
  );
  return `${lines.join('\n')}\n`;
}
