import {
  OptionChecker,
  describeValue,
  isObject,
  optionNames,
} from '../validation/option-checks.js';
import { isPlainJson } from '../validation/plain-json.js';

/** Which tool the model must (or must not) call. */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

/** How hard a reasoning model thinks before it answers. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * Sampling and tool-use settings of model calls, per agent (`AgentOptions.modelSettings`) and
 * per run (`RunOptions.modelSettings`, merged over the agent's key by key). A run stores its
 * merged settings, so a resume (in any process) calls the model with the same ones. Each
 * adapter maps them to its API; a setting an API does not have is left out (see each adapter).
 * Plain JSON.
 * @example { temperature: 0.2, toolChoice: { name: 'search' }, extra: { user: 'u-42' } }
 */
export interface ModelSettings {
  /** Sampling temperature, 0 to 2. */
  temperature?: number | undefined;
  /** Nucleus sampling: the probability mass considered, over 0 up to 1. */
  topP?: number | undefined;
  /**
   * Most tokens one answer may have. A run's token budget lowers it further: the model is
   * sent the smaller of the two.
   */
  maxOutputTokens?: number | undefined;
  /** `auto` (the model decides), `required` (some tool), `none`, or `{ name }` (that tool). */
  toolChoice?: ToolChoice | undefined;
  /** Whether the model may ask for several tool calls in one answer. */
  parallelToolCalls?: boolean | undefined;
  /** Reasoning effort of reasoning models. */
  reasoningEffort?: ReasoningEffort | undefined;
  /** Seed for (best effort) deterministic sampling. */
  seed?: number | undefined;
  /**
   * Provider-specific fields passed through as they are: merged into the request body by the
   * OpenAI adapter, passed as `providerOptions` by the AI SDK adapter. Plain JSON.
   * @example { service_tier: 'flex' } // OpenAI
   */
  extra?: Record<string, unknown> | undefined;
}

export const MODEL_SETTING_NAMES = optionNames<ModelSettings>({
  temperature: true,
  topP: true,
  maxOutputTokens: true,
  toolChoice: true,
  parallelToolCalls: true,
  reasoningEffort: true,
  seed: true,
  extra: true,
});

const TOOL_CHOICES = ['auto', 'required', 'none'];
const REASONING_EFFORTS: readonly ReasoningEffort[] = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
];

const isToolChoice = (v: unknown): boolean =>
  (typeof v === 'string' && TOOL_CHOICES.includes(v)) ||
  (isObject(v) &&
    Object.keys(v).length === 1 &&
    typeof v['name'] === 'string' &&
    v['name'].length > 0);

/**
 * Checks a `modelSettings` option of `call`: known names only (an unknown one names the
 * closest valid one), and each value of its kind.
 * @throws TypeError at the first mistake.
 */
export function checkModelSettings(call: string, settings: unknown, path = 'modelSettings'): void {
  new OptionChecker(call, settings, MODEL_SETTING_NAMES, path)
    .check('temperature', 'a number from 0 to 2', (v) => typeof v === 'number' && v >= 0 && v <= 2)
    .check('topP', 'a number over 0 up to 1', (v) => typeof v === 'number' && v > 0 && v <= 1)
    .positiveInteger('maxOutputTokens')
    .check('toolChoice', `"auto", "required", "none" or { name: '<tool name>' }`, isToolChoice)
    .check('parallelToolCalls', 'a boolean', (v) => typeof v === 'boolean')
    .check('reasoningEffort', `one of ${REASONING_EFFORTS.map((e) => `"${e}"`).join(', ')}`, (v) =>
      REASONING_EFFORTS.includes(v as ReasoningEffort),
    )
    .check('seed', 'an integer', (v) => Number.isSafeInteger(v))
    .object('extra')
    .check('extra', 'plain JSON (it is stored with the run)', (v) => isPlainJson(v));
}

/**
 * The settings of a run: the agent's, overridden key by key by the run's (`extra` merged one
 * level deep). Keys set to `undefined` are dropped, so the result is plain JSON.
 */
export function mergeModelSettings(
  agent: ModelSettings | undefined,
  run: ModelSettings | undefined,
): ModelSettings | undefined {
  if (!agent && !run) return undefined;
  const merged: Record<string, unknown> = {};
  for (const source of [agent, run]) {
    for (const [key, value] of Object.entries(source ?? {})) {
      if (value !== undefined) merged[key] = value;
    }
  }
  if (agent?.extra && run?.extra) merged['extra'] = { ...agent.extra, ...run.extra };
  return JSON.parse(JSON.stringify(merged)) as ModelSettings;
}

/**
 * Checks that a `toolChoice` naming a tool names one the agent has.
 * @throws TypeError naming the unknown tool and the agent's tools.
 */
export function checkToolChoice(
  call: string,
  settings: ModelSettings | undefined,
  toolNames: readonly string[],
): void {
  const choice = settings?.toolChoice;
  if (typeof choice !== 'object' || toolNames.includes(choice.name)) return;
  const known =
    toolNames.length === 0 ? 'it has no tools' : `its tools are ${toolNames.join(', ')}`;
  throw new TypeError(
    `${call}: modelSettings.toolChoice names the tool ${describeValue(choice.name)}, which the agent does not have (${known})`,
  );
}

/**
 * The output-token limit a call is sent: the smaller of the setting and what the run's token
 * budget has left; `undefined` when neither limits it.
 */
export function outputTokenLimit(
  setting: number | undefined,
  budgetLeft: number | undefined,
): number | undefined {
  if (setting === undefined) return budgetLeft;
  if (budgetLeft === undefined) return setting;
  return Math.min(setting, budgetLeft);
}
