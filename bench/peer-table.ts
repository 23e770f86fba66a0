import { summarize } from './stats.js';
import { formatValue, rowsOf, type Row, type Unit } from './table.js';

/**
 * One figure measured on agentstate and on the peer in the same runs: run i of one side ran
 * in the same round (the same time window of the machine) as run i of the other.
 */
export interface PeerPair {
  section: string;
  figure: string;
  unit: Unit;
  agentstate: readonly number[];
  peer: readonly number[];
  /**
   * Which way is better. `higher` (messages per second): the ratio is agentstate / peer;
   * `lower` (times, memory): peer / agentstate. Either way a ratio above 1 is agentstate ahead.
   */
  better: 'higher' | 'lower';
}

/** The ratio of each round (a ratio above 1: agentstate ahead), in run order. */
export function pairedRatios(pair: PeerPair): number[] {
  if (pair.agentstate.length !== pair.peer.length || pair.peer.length === 0) {
    throw new RangeError(
      `${pair.section}: ${pair.figure}: ${pair.agentstate.length} agentstate run(s) against ${pair.peer.length} of the peer`,
    );
  }
  return pair.agentstate.map((a, i) => {
    const p = pair.peer[i]!;
    return pair.better === 'higher' ? a / p : p / a;
  });
}

/**
 * Three rows per pair: agentstate's figure, the peer's, and their ratio. The ratio's median,
 * min and max are over the rounds' own ratios (each round's agentstate against the same
 * round's peer), not the ratio of the two medians.
 */
export function peerRows(pairs: readonly PeerPair[]): Row[] {
  return pairs.flatMap((pair) => {
    const ratios = pairedRatios(pair);
    const runs = ratios.map((ratio, i) => ({
      agentstate: pair.agentstate[i]!,
      peer: pair.peer[i]!,
      ratio,
    }));
    const ratioName =
      pair.better === 'higher'
        ? `  agentstate / peer (above 1: agentstate ahead)`
        : `  peer / agentstate (above 1: agentstate ahead)`;
    return rowsOf<(typeof runs)[number]>(pair.section, runs, [
      [`agentstate: ${pair.figure}`, pair.unit, (r) => r.agentstate],
      [`peer: ${pair.figure}`, pair.unit, (r) => r.peer],
      [ratioName, 'x', (r) => r.ratio],
    ]);
  });
}

/** A median with its min and max: `1402 ms (1340 ms-1411 ms)`. */
function spread(values: readonly number[], unit: Unit): string {
  const { median, min, max } = summarize(values);
  return `${formatValue(median, unit)} (${formatValue(min, unit)}-${formatValue(max, unit)})`;
}

/**
 * The pairs as one Markdown table (for bench/README.md): per figure, each side's median and
 * the median of the rounds' ratios, each with its min and max.
 */
export function renderPeerMarkdown(pairs: readonly PeerPair[], runs: number): string {
  const lines = [
    `| workload | figure | agentstate, median of ${runs} (min-max) | peer | ratio (above 1: agentstate ahead) |`,
    '|---|---|---:|---:|---:|',
  ];
  for (const pair of pairs) {
    const ratio = pair.better === 'higher' ? 'agentstate / peer' : 'peer / agentstate';
    lines.push(
      `| ${pair.section} | ${pair.figure} | ${spread(pair.agentstate, pair.unit)} | ${spread(pair.peer, pair.unit)} | ${ratio}: **${spread(pairedRatios(pair), 'x')}** |`,
    );
  }
  return lines.join('\n');
}
