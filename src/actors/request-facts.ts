import type { WindowRange } from '../context-window/context-window.js';
import type { ModelRequestFacts } from '../machines/step-actor-io.js';
import type { ModelRequest } from '../models/model.js';

/**
 * The journaled facts of a model request: the agent, its instructions as sent (scrubbed by
 * `redact`), where its items are in the history (`range`, and `from`, where the model starts
 * reading it, when a `clearSession` moved it; none for a sub-agent run), the tools' names and
 * the settings. A few fields whatever the history's length (invariant 2): the inspector
 * rebuilds the items from them.
 */
export function requestFacts(
  agent: string,
  request: ModelRequest,
  range: WindowRange | undefined,
  from = 0,
  redact?: (text: string) => string,
): ModelRequestFacts {
  const instructions = request.instructions;
  return {
    agent,
    ...(instructions ? { instructions: redact ? redact(instructions) : instructions } : {}),
    ...(range ? { window: { ...range, ...(from > 0 ? { from } : {}) } } : {}),
    tools: request.tools.map((t) => t.name),
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    ...(request.settings ? { settings: { ...request.settings } } : {}),
  };
}
