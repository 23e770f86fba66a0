import { z } from 'zod';
import { tool, type AnyTool } from '../tools/tool.js';

/** What a handoff needs of the agent that takes over. */
export interface HandoffTarget {
  readonly name: string;
  readonly options: { readonly instructions?: unknown };
}

/** The tool name the model hands off to `agent` with: `transfer_to_<name>`. */
export function handoffToolName(agent: HandoffTarget): string {
  return `transfer_to_${agent.name.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
}

/**
 * The tool a model calls to hand the rest of the run to `agent` (an agent's `handoffs`): the
 * call's result tells the model it is done, and from the next turn `agent` answers, with its
 * own instructions, model and tools, reading the same conversation. Idempotent: a handoff
 * in flight at a crash is retried (found by crash exploration, `exploreCrashes`).
 */
export function handoffTool(agent: HandoffTarget): AnyTool {
  const base = tool({
    name: handoffToolName(agent),
    description: `Hand the conversation over to the agent "${agent.name}", which answers from now on.`,
    parameters: z.object({}),
    // No effect outside the run: a call a crash cut off runs again, never left in doubt (which
    // failed it, so the model read "outcome unknown" while the other agent had taken over).
    idempotent: true,
    execute: () => `Transferred to ${agent.name}.`,
  });
  return Object.freeze({ ...base, handoff: { agent } });
}
