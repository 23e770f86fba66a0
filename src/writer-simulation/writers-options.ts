import type { Agent } from '../agent/agent.js';
import type { Clock } from '../core/clock.js';
import type { SessionStore } from '../persistence/session-store.js';
import { OptionChecker, isObject, optionNames } from '../validation/option-checks.js';

/** One simulated worker, as `open` is told it. */
export interface SimulatedWorker {
  /** 0, 1, 2, ... */
  index: number;
  /**
   * The worker's clock (the simulation's time, offset by the worker's skew): give it to the
   * store as its lease clock, so that leases expire as the simulation moves time.
   */
  clock: Clock;
}

/** The faults the simulation injects (probabilities from 0 to 1, and a skew bound). */
export interface WriterFaults {
  /** Probability that a write waits a few turns of the event loop first. @default 0.3 */
  slowWrites?: number | undefined;
  /** Probability that a write fails (half before it is written, half after). @default 0.05 */
  failedWrites?: number | undefined;
  /**
   * Probability that an operation is a lost lease: a worker hangs mid-run with a write in
   * flight, its lease expires, another worker takes the session over, then the first wakes and
   * its write goes in. @default 0.15
   */
  lostLeases?: number | undefined;
  /** Each worker's clock is off by up to this many ms, either way. @default 2000 */
  clockSkewMs?: number | undefined;
}

export interface SimulateWritersOptions {
  /** The seed of every choice the simulation makes: the same seed, the same operations. */
  seed: number;
  /**
   * Each worker's store handle. A store shared by processes (PostgreSQL): a handle per worker.
   * A store one process holds (memory): one object for all of them (its leases live in it),
   * made at worker 0's call and returned to the others.
   */
  open: (worker: SimulatedWorker) => SessionStore | Promise<SessionStore>;
  /** The agent the workers run. @default a scripted agent with one tool (`simulatedAgent`) */
  agent?: Agent | undefined;
  /** @default 3 */
  workers?: number | undefined;
  /** Sessions the workers contend on. @default 2 */
  sessions?: number | undefined;
  /** Operations per seed (sends, cancels, approvals, resumes, recoveries, lost leases). @default 30 */
  operations?: number | undefined;
  faults?: WriterFaults | undefined;
}

/** The options with their defaults. */
export interface WritersSettings {
  seed: number;
  workers: number;
  sessions: number;
  operations: number;
  faults: Required<{ [K in keyof WriterFaults]: number }>;
}

const NAMES = optionNames<SimulateWritersOptions>({
  seed: true,
  open: true,
  agent: true,
  workers: true,
  sessions: true,
  operations: true,
  faults: true,
});
const FAULT_NAMES = optionNames<WriterFaults>({
  slowWrites: true,
  failedWrites: true,
  lostLeases: true,
  clockSkewMs: true,
});
const CALL = 'simulateWriters()';
const probability = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;
const atMost = (max: number) => (v: unknown) =>
  Number.isInteger(v) && (v as number) >= 1 && (v as number) <= max;

/** The longest skew: well under the lease's life (`LEASE_TTL_MS`), as a deployment keeps it. */
export const MAX_SKEW_MS = 3_000;

/** Checks `simulateWriters(options)` (`TypeError` naming the option) and fills the defaults. */
export function writersSettings(options: SimulateWritersOptions): WritersSettings {
  new OptionChecker(CALL, options ?? null, NAMES)
    .check('seed', 'a safe integer', Number.isSafeInteger, true)
    .function('open', true)
    .implements('agent', 'Agent', ['runtimeFor'])
    .check('workers', 'an integer from 2 to 16', (v) => atMost(16)(v) && (v as number) >= 2)
    .check('sessions', 'an integer from 1 to 100', atMost(100))
    .check('operations', 'an integer from 1 to 10000', atMost(10_000))
    .object('faults');
  const faults = options.faults;
  if (isObject(faults)) {
    new OptionChecker(CALL, faults, FAULT_NAMES, 'faults')
      .check('slowWrites', 'a probability from 0 to 1', probability)
      .check('failedWrites', 'a probability from 0 to 1', probability)
      .check('lostLeases', 'a probability from 0 to 1', probability)
      .check(
        'clockSkewMs',
        `an integer from 0 to ${MAX_SKEW_MS}`,
        (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_SKEW_MS,
      );
  }
  return {
    seed: options.seed,
    workers: options.workers ?? 3,
    sessions: options.sessions ?? 2,
    operations: options.operations ?? 30,
    faults: {
      slowWrites: faults?.slowWrites ?? 0.3,
      failedWrites: faults?.failedWrites ?? 0.05,
      lostLeases: faults?.lostLeases ?? 0.15,
      clockSkewMs: faults?.clockSkewMs ?? 2_000,
    },
  };
}
