import type { TargetResult } from './table.js';
import { median } from './stats.js';
import type { W1Run } from './workloads/w1-long-conversation.js';
import type { W2Run } from './workloads/w2-many-conversations.js';
import type { W3Run } from './workloads/w3-resume.js';
import type { W4Run } from './workloads/w4-memory.js';
import type { FixedCostRun } from './workloads/w7-fixed-cost.js';

const MB = 1024 * 1024;

/** Suspended sessions "add no RSS": allowed noise between two fresh processes. */
export const SUSPENDED_RSS_TOLERANCE = 2 * MB;

/** W2's peak RSS limit (issue 16). */
export const W2_PEAK_RSS_LIMIT = 150 * MB;

/** Importing the package in a cold process (W3), at most (issue 16). */
export const IMPORT_LIMIT_MS = 100;

/**
 * The issues' targets (5 and 16), evaluated on the medians over runs. Never throws: a miss is
 * reported.
 */
export function evaluateTargets(
  w1Long: W1Run[],
  w2: W2Run[],
  w3: W3Run[],
  w4: W4Run[],
  fixedCost: FixedCostRun[],
): TargetResult[] {
  const T = w1Long[0]?.messages ?? 0;
  const timeGrowth = median(w1Long.map((r) => r.lastMsPerMessage / r.firstMsPerMessage));
  const bytesGrowth = median(w1Long.map((r) => r.lastBytesPerMessage / r.firstBytesPerMessage));
  const w1Floor = median(w1Long.map((r) => r.floorRatio));
  const w2Floor = median(w2.map((r) => r.floorRatio));
  const w2Rss = median(w2.map((r) => r.peakRssBytes));
  const w3Share = median(w3.map((r) => r.storeShare));
  const w3Imports = median(w3.map((r) => r.importsMs));
  const suspended = median(w4.map((r) => r.suspendedRssDelta));
  const perActive = median(w4.map((r) => r.activeRssPerSession));
  const suspendedCount = w4[0]?.suspended ?? 0;
  return [
    {
      name: `W1 T=${T}: time/message, last 10% / first 10%`,
      value: timeGrowth,
      limit: '<= 1.30x',
      unit: 'x',
      pass: timeGrowth <= 1.3,
    },
    {
      name: `W1 T=${T}: bytes/message, last 10% / first 10%`,
      value: bytesGrowth,
      limit: '<= 1.20x',
      unit: 'x',
      pass: bytesGrowth <= 1.2,
    },
    {
      name: `W1 T=${T}: time / floor`,
      value: w1Floor,
      limit: '<= 2.00x',
      unit: 'x',
      pass: w1Floor <= 2,
    },
    {
      name: 'W2: time / floor',
      value: w2Floor,
      limit: '<= 1.50x',
      unit: 'x',
      pass: w2Floor <= 1.5,
    },
    {
      name: 'W2: peak RSS',
      value: w2Rss,
      limit: `<= ${W2_PEAK_RSS_LIMIT / MB} MB`,
      unit: 'bytes',
      pass: w2Rss <= W2_PEAK_RSS_LIMIT,
    },
    {
      name: 'W3: importing the package (cold process)',
      value: w3Imports,
      limit: `<= ${IMPORT_LIMIT_MS} ms`,
      unit: 'ms',
      pass: w3Imports <= IMPORT_LIMIT_MS,
    },
    {
      name: 'W3: (open + message) / time from process start',
      value: w3Share,
      limit: '<= 5.0%',
      unit: '%',
      pass: w3Share <= 0.05,
    },
    fixedCostTarget(fixedCost),
    {
      name: `W4: RSS added by ${suspendedCount} suspended sessions`,
      value: suspended,
      limit: `<= ${SUSPENDED_RSS_TOLERANCE / MB} MB (noise)`,
      unit: 'bytes',
      pass: suspended <= SUSPENDED_RSS_TOLERANCE,
    },
    {
      name: 'W4: 1,000 active session actors (RSS)',
      value: perActive * 1000,
      limit: '< 50 MB',
      unit: 'bytes',
      pass: perActive * 1000 < 50 * MB,
    },
  ];
}

/** The per-message fixed cost's target (issue 16), on the median of the runs' ratios. */
export function fixedCostTarget(fixedCost: FixedCostRun[]): TargetResult {
  const fixed = median(fixedCost.map((r) => r.ratio));
  return {
    name: 'Per-message fixed cost: a message / its steps in a long run (medians)',
    value: fixed,
    limit: '<= 1.30x',
    unit: 'x',
    pass: fixed <= 1.3,
  };
}
