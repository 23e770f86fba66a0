import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `npm run bench` was asked to run: sizes, runs, where to write, one part alone. */
export interface Config {
  runs: number;
  smoke: boolean;
  markdown: boolean;
  out: string;
  conversationLengths: number[];
  w2Sessions: number;
  suspendedSessions: number;
  activeSessions: number;
  warmUpMessages: number;
  w5Workers: number[];
  /**
   * One part alone: `postgres` (W1 on PostgreSQL at the longest T, W5) or `fixed-cost` (the
   * per-message fixed cost and its target) or `w1-w2` (W1 at the longest T and W2, the hot
   * path's before and after) or `peers` (W1, W2 and W3 against `@openai/agents`, side by side)
   * or `inspector` (the inspector page in headless Chromium) or `attach` (attach to a long
   * session's last run against reading its journal) or `workflows` (hosted app machines: the
   * 1,000-step workflow and the instances waiting on timers) or `memory` (recall over one
   * user's memories on agentstate's stores and LangGraph.js's, side by side) or `schedules`
   * (10,000 schedules in the store: the scheduler's CPU idle and per fired tick, the store
   * operations per tick, on LevelDB and PostgreSQL) or `crashes` (crash points explored per
   * second by `exploreCrashes` on the bills and support examples, simulated and in child
   * processes) or `agent-check` (`checkAgent` on the support example and on synthetic agent
   * trees) or `a2a` (one sub-agent call over A2A on 127.0.0.1 against a local one; 3 runs) or
   * `evals` (eval rows per second in seam mode against replaying the whole run, the eval's store
   * on memory and LevelDB; 3 runs). Absent: every workload.
   */
  only: Part | undefined;
}

/** The parts `--<part>` runs alone. */
const PARTS = [
  'postgres',
  'fixed-cost',
  'w1-w2',
  'peers',
  'inspector',
  'attach',
  'workflows',
  'memory',
  'schedules',
  'crashes',
  'agent-check',
  'a2a',
  'evals',
] as const;
type Part = (typeof PARTS)[number];

export function parseArgs(argv: string[]): Config {
  const smoke = argv.includes('--smoke');
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const parts = PARTS.filter((part) => argv.includes(`--${part}`));
  if (parts.length > 1) {
    throw new TypeError(`${parts.map((p) => `--${p}`).join(' and ')} run one part each: pick one`);
  }
  // The memory part alone: 3 passes of its query set (LangGraph.js takes seconds a search at 100k);
  // the crashes part: 3 explorations a mode (a child process per point in one of them).
  const three =
    parts[0] === 'memory' || parts[0] === 'crashes' || parts[0] === 'a2a' || parts[0] === 'evals';
  const runs = Number(value('--runs') ?? (smoke ? 1 : three ? 3 : 5));
  if (!Number.isInteger(runs) || runs < 1) throw new TypeError('--runs must be a positive integer');
  return {
    runs,
    smoke,
    markdown: argv.includes('--markdown'),
    out:
      value('--out') ??
      (smoke
        ? join(tmpdir(), 'agentstate-bench-smoke.json')
        : fileURLToPath(
            new URL(parts[0] === 'peers' ? 'peers/results.json' : 'results.json', import.meta.url),
          )),
    conversationLengths: smoke ? [10] : [10, 100, 500],
    w2Sessions: smoke ? 20 : 1000,
    suspendedSessions: smoke ? 100 : 10_000,
    activeSessions: smoke ? 100 : 1000,
    warmUpMessages: smoke ? 20 : 300,
    w5Workers: smoke ? [2] : [1, 2, 4],
    only: parts[0],
  };
}
