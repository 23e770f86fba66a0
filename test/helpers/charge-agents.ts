/**
 * Agents that charge a card once a human approves, for crash exploration's tests (their own
 * module, so a child process of `exploreCrashes({ processes })` imports the same ones):
 * `lyingCharge`'s tool is marked idempotent but records its effect without a key (a second run
 * charges again), `honestCharge`'s passes its call id as the key, `stuckCharge`'s hangs in a
 * child process.
 */
import { z } from 'zod';
import { Agent, tool } from '../../src/index.js';
import { EffectLedger, ScriptedModel } from '../../src/testing.js';

/** The ledger both agents' tools record their charges in. */
export const effects = new EffectLedger();

/** In the child process of a crash point (`exploreCrashes({ processes })`), not in its parent. */
const inCrashChild = (): boolean => /crash-child\.[jt]s$/.test(process.argv[1] ?? '');

function chargeAgent(keyed: boolean, stuckInChild = false): Agent {
  const charge = tool({
    name: 'charge',
    description: 'Charges a card',
    parameters: z.object({ amount: z.number() }),
    needsApproval: true,
    idempotent: true,
    execute: async ({ amount }, { callId }) => {
      if (stuckInChild && inCrashChild()) await new Promise(() => undefined);
      effects.record(callId, 'charge', { amount }, keyed ? { key: callId } : {});
      return `charged ${amount}`;
    },
  });
  return new Agent({
    name: 'shop',
    model: new ScriptedModel((r) =>
      r.items.some((i) => i.type === 'tool_result')
        ? { text: 'done' }
        : { toolCalls: [{ name: 'charge', arguments: { amount: 5 } }] },
    ),
    tools: [charge],
  });
}

/** Its tool says it is idempotent, and is not. */
export const lyingCharge = chargeAgent(false);

/** Its tool is idempotent in fact: the call id is the charge's idempotency key. */
export const honestCharge = chargeAgent(true);

/** Honest, but its tool never returns in a crash point's child process (a child that hangs). */
export const stuckCharge = chargeAgent(true, true);

/** The scenario: a charge asked for, then approved. */
export const chargeScenario = {
  name: 'charge',
  steps: [{ send: 'charge me' }, { approve: 'charge' }],
};
