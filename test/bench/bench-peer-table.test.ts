import { describe, expect, it } from 'vitest';
import {
  pairedRatios,
  peerRows,
  renderPeerMarkdown,
  type PeerPair,
} from '../../bench/peer-table.js';
import { renderTable } from '../../bench/table.js';

const throughput: PeerPair = {
  section: 'W2',
  figure: 'messages/second',
  unit: 'msg/s',
  agentstate: [400, 900, 600],
  peer: [800, 600, 1200],
  better: 'higher',
};

describe('the table against a peer', () => {
  it('divides each round by the same round of the other side, above 1 when agentstate is ahead', () => {
    expect(pairedRatios(throughput)).toEqual([0.5, 1.5, 0.5]);
    const time: PeerPair = {
      ...throughput,
      figure: 'total time',
      unit: 'ms',
      agentstate: [100, 200],
      peer: [1000, 1000],
      better: 'lower',
    };
    expect(pairedRatios(time)).toEqual([10, 5]);
  });

  it("summarises the rounds' ratios, not the ratio of the medians", () => {
    const rows = peerRows([throughput]);
    expect(rows.map((r) => r.name)).toEqual([
      'agentstate: messages/second',
      'peer: messages/second',
      '  agentstate / peer (above 1: agentstate ahead)',
    ]);
    expect(rows[0]!.summary).toMatchObject({ median: 600, min: 400, max: 900 });
    expect(rows[1]!.summary).toMatchObject({ median: 800, min: 600, max: 1200 });
    // The ratio of the medians would be 0.75; the median of the rounds' ratios is 0.5.
    expect(rows[2]!.summary).toMatchObject({ median: 0.5, min: 0.5, max: 1.5 });
    expect(renderTable(rows, 3)).toContain('0.50x');
  });

  it('writes one Markdown line per figure: both medians and the ratio, each with min and max', () => {
    const lines = renderPeerMarkdown([throughput], 3).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(
      '| W2 | messages/second | 600 msg/s (400 msg/s-900 msg/s) | 800 msg/s (600 msg/s-1200 msg/s) | agentstate / peer: **0.50x (0.50x-1.50x)** |',
    );
  });

  it('refuses sides with different numbers of runs', () => {
    expect(() => pairedRatios({ ...throughput, peer: [1, 2] })).toThrow(RangeError);
    expect(() => pairedRatios({ ...throughput, agentstate: [], peer: [] })).toThrow(RangeError);
  });
});
