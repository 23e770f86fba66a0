import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { Clock } from '../../src/core/clock.js';
import type { Durability } from '../../src/core/durability-policy.js';
import type { EffectLedger } from '../../src/crash-exploration/effect-ledger.js';
import type { OnInterrupted } from '../../src/tools/in-doubt.js';
import { tool } from '../../src/tools/tool.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';

/** How the `charge` fixture tool treats a repeat of its call. */
export interface ChargeOptions {
  /** Marked `idempotent: true`. */
  idempotent?: boolean;
  /** Records its effect under its call id as key (an API with idempotency keys). */
  keyed?: boolean;
  onInterrupted?: OnInterrupted;
  needsApproval?: boolean;
  /** Given: the tool notes the clock's time in its effect. */
  clock?: Clock;
  /** The agent's durability. @default 'step' */
  durability?: Durability;
  /** Awaited before each charge (a test's hold: a tool that never returns). */
  before?: () => Promise<void>;
}

/**
 * A shop agent whose model asks to `charge` 5 once, then answers `done: <result>`. Its tool
 * records a `charge` effect in `effects`: with `idempotent` but not `keyed`, it is the
 * deliberately wrong fixture (marked idempotent, and it is not).
 */
export function chargeAgent(effects: EffectLedger, options: ChargeOptions = {}): Agent {
  const charge = tool({
    name: 'charge',
    description: 'Charges the card on file',
    parameters: z.object({ amount: z.number() }),
    needsApproval: options.needsApproval ?? true,
    ...(options.idempotent ? { idempotent: true } : {}),
    ...(options.onInterrupted ? { onInterrupted: options.onInterrupted } : {}),
    execute: async ({ amount }, { callId }) => {
      await options.before?.();
      const at = options.clock?.now();
      effects.record(
        callId,
        'charge',
        { amount, ...(at === undefined ? {} : { at }) },
        {
          ...(options.keyed ? { key: callId } : {}),
        },
      );
      return `charged ${amount}`;
    },
  });
  return new Agent({
    name: 'shop',
    model: new ScriptedModel((request) => {
      const result = request.items.find((i) => i.type === 'tool_result');
      return result
        ? { text: `done: ${result.output}` }
        : { toolCalls: [{ name: 'charge', arguments: { amount: 5 } }] };
    }),
    tools: [charge],
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.durability ? { durability: options.durability } : {}),
  });
}

/** The charge scenario: a message, then the call approved. */
export const CHARGE_SCENARIO = {
  name: 'charge',
  steps: [{ send: 'Charge me 5, please.' }, { approve: 'charge' }],
};
