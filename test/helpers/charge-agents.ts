/**
 * Agents that charge a card once a human approves, for crash exploration's tests (their own
 * module, so a child process of `exploreCrashes({ processes })` imports the same ones):
 * `lyingCharge`'s tool is marked idempotent but records its effect without a key (a second run
 * charges again), `honestCharge`'s passes its call id as the key, `stuckCharge`'s hangs in a
 * child process.
 */
import { EffectLedger } from '../../src/testing.js';
import { CHARGE_SCENARIO, chargeAgent } from './crash-fixtures.js';

/** The ledger both agents' tools record their charges in. */
export const effects = new EffectLedger();

/** In the child process of a crash point (`exploreCrashes({ processes })`), not in its parent. */
const inCrashChild = (): boolean => /crash-child\.[jt]s$/.test(process.argv[1] ?? '');

/** Holds forever in a crash point's child process; returns at once elsewhere. */
const hangInChild = (): Promise<void> =>
  inCrashChild() ? new Promise<void>(() => undefined) : Promise.resolve();

/** Its tool says it is idempotent, and is not. */
export const lyingCharge = chargeAgent(effects, { idempotent: true });

/** Its tool is idempotent in fact: the call id is the charge's idempotency key. */
export const honestCharge = chargeAgent(effects, { idempotent: true, keyed: true });

/** Honest, but its tool never returns in a crash point's child process (a child that hangs). */
export const stuckCharge = chargeAgent(effects, {
  idempotent: true,
  keyed: true,
  before: hangInChild,
});

/** The scenario: a charge asked for, then approved. */
export const chargeScenario = CHARGE_SCENARIO;
