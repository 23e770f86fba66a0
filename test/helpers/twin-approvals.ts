import { z } from 'zod';
import { Agent, tool, type SessionStore } from '../../src/index.js';
import { ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import { lastResult } from './sub-agent-fixtures.js';

/** The call id both children give their approval-gated call. */
export const TWIN_CALL = 'call_same';

/**
 * A lead agent whose one turn asks two sub-agents (`alpha`, `beta`) at once; each calls its
 * approval-gated tool `ship` with the same call id (`call_same`), so the session's run waits on
 * two children's calls that share an id. Each model call uses 10 input / 5 output tokens.
 * `shipped` lists what each child's tool shipped.
 */
export function twinApprovals(store: SessionStore) {
  const shipped: string[] = [];
  const usage = { inputTokens: 10, outputTokens: 5 };
  const child = (name: string) =>
    new Agent({
      name,
      model: new ScriptedModel((request): ScriptedResponse => {
        const result = lastResult(request);
        return result === undefined
          ? {
              toolCalls: [{ name: 'ship', arguments: { what: name }, callId: TWIN_CALL }],
              usage,
            }
          : { text: `${name}: ${result}`, usage };
      }),
      tools: [
        tool({
          name: 'ship',
          description: 'Ships a parcel',
          parameters: z.object({ what: z.string() }),
          needsApproval: true,
          execute: ({ what }) => {
            shipped.push(what);
            return `shipped ${what}`;
          },
        }),
      ],
    });
  const lead = new Agent({
    name: 'lead',
    store,
    model: new ScriptedModel((request): ScriptedResponse => {
      const last = request.items.at(-1);
      if (last?.type === 'tool_result') {
        const done = request.items.filter((i) => i.type === 'tool_result').length;
        return done >= 2 ? { text: 'both shipped', usage } : { text: 'waiting', usage };
      }
      return {
        toolCalls: [
          { name: 'ask_alpha', arguments: { input: 'ship alpha' } },
          { name: 'ask_beta', arguments: { input: 'ship beta' } },
        ],
        usage,
      };
    }),
    tools: [
      child('alpha').asTool({ name: 'ask_alpha', description: 'Asks alpha' }),
      child('beta').asTool({ name: 'ask_beta', description: 'Asks beta' }),
    ],
  });
  return { lead, shipped };
}
