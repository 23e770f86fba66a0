import type { Model } from '../models/model.js';
import type { ModelSettings } from '../models/model-settings.js';

/**
 * What an eval tries instead of what ran: another model, other instructions (a text, or a
 * function of the recorded ones), other settings. Absent parts are the agent's own.
 */
export interface EvalCandidate {
  model?: Model | undefined;
  instructions?: string | ((recorded?: string) => string) | undefined;
  settings?: ModelSettings | undefined;
}

/**
 * How a `run` row's tools answer: `scripted` (each tool answers its recorded result, matched
 * by name and arguments, then by order; sub-agent tools run their sub-agent), or `live` (the
 * agent's own tools).
 */
export type EvalTools = 'scripted' | 'live';
